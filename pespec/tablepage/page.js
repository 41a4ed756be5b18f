// pespec conformance table page: filters, row details, copy. No network; works from file://.
(function () {
  "use strict";
  var selects = Array.prototype.slice.call(document.querySelectorAll("select[data-filter]"));
  var text = document.getElementById("f-text");
  var lines = Array.prototype.slice.call(document.querySelectorAll("table.grid tbody tr"));
  var shown = document.getElementById("shown");
  var total = document.querySelectorAll("table.grid td.c[data-verdict]").length;

  function matches(td, wanted, needle, client) {
    for (var i = 0; i < wanted.length; i++) {
      var name = wanted[i][0], value = wanted[i][1];
      var have = td.getAttribute("data-" + name) || "";
      if (name === "changed" ? have.split(" ").indexOf(value) < 0 : have !== value) return false;
    }
    return !needle || client.indexOf(needle) >= 0;
  }

  function apply() {
    var wanted = selects.filter(function (s) { return s.value; })
      .map(function (s) { return [s.getAttribute("data-filter"), s.value]; });
    var needle = text.value.trim().toLowerCase();
    var count = 0;
    lines.forEach(function (tr) {
      var name = tr.querySelector("th").textContent + " " + tr.querySelector("td").textContent;
      var client = name.toLowerCase();
      var any = false;
      tr.querySelectorAll("td.c[data-verdict]").forEach(function (td) {
        var ok = matches(td, wanted, needle, client);
        td.classList.toggle("dim", !ok);
        if (ok) { any = true; count++; }
      });
      tr.classList.toggle("hidden", !any);
    });
    shown.textContent = count + " of " + total + " rows shown";
  }

  var opener = null;

  function close(article) {
    article.hidden = true;
    if (opener) opener.focus();
  }

  function openRow(index, focus) {
    var article = document.getElementById("row-" + index);
    if (!article) return;
    document.querySelectorAll("article.detail").forEach(function (a) { a.hidden = true; });
    article.hidden = false;
    if (focus) { article.focus(); article.scrollIntoView({ block: "start" }); }
    if (history.replaceState) history.replaceState(null, "", "#row-" + index);
  }

  function copy(button) {
    // execCommand first: it answers at once, from file:// too; the asynchronous clipboard
    // API only where that fails (it may wait on a permission nobody is asked for).
    var code = button.parentNode.querySelector("code");
    var line = code.textContent;
    var note = button.parentNode.querySelector(".copied");
    function done(ok) { note.textContent = ok ? "copied" : "select the line and copy it"; }
    var range = document.createRange();
    range.selectNodeContents(code);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    if (ok || !(navigator.clipboard && window.isSecureContext)) { done(ok); return; }
    navigator.clipboard.writeText(line).then(function () { done(true); },
                                             function () { done(false); });
  }

  selects.forEach(function (s) { s.addEventListener("change", apply); });
  text.addEventListener("input", apply);
  document.getElementById("reset").addEventListener("click", function () {
    selects.forEach(function (s) { s.value = ""; });
    text.value = "";
    apply();
  });
  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target.closest("button") : null;
    if (!target) return;
    if (target.hasAttribute("data-row")) {
      opener = target;
      openRow(target.getAttribute("data-row"), true);
    }
    else if (target.classList.contains("copy")) copy(target);
    else if (target.classList.contains("close")) close(target.closest("article"));
    else if (target.classList.contains("cause")) {
      document.getElementById("f-cause").value = target.getAttribute("data-cause");
      apply();
      document.getElementById("grid").scrollIntoView();
    }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    document.querySelectorAll("article.detail:not([hidden])").forEach(close);
  });
  var hash = /^#row-(\d+)$/.exec(location.hash);
  if (hash) openRow(hash[1], true);
})();
