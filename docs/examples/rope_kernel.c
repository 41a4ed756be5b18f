/* Rotary position embedding in float32, default schedule, halves pairing (Llama-2 style).
 * Reads the inputs `pespec rope inputs` writes (a header, then: position,x0,...,x{d-1}) and
 * writes one rotated row per position (position,y0,...) for `pespec rope check --from-file`.
 *   cc -O2 -o rope_kernel rope_kernel.c -lm
 *   pespec rope inputs --config Llama-2-7B -o inputs.csv
 *   ./rope_kernel 10000 < inputs.csv > out.csv
 *   pespec rope check --from-file out.csv --config Llama-2-7B --level float32
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_DIM 1024

/* Rotate the d values of x in place by the angles p * theta^(-2j/d), j = 0 .. d/2 - 1. */
static void rope_row(float *x, int d, float p, float theta) {
    for (int j = 0; j < d / 2; j++) {
        int ia = j, ib = j + d / 2; /* halves pairing: (x[j], x[j + d/2]) */
        float inv_freq = 1.0f / powf(theta, (float)(2 * j) / (float)d);
        float phi = p * inv_freq;
        float c = cosf(phi), s = sinf(phi);
        float a = x[ia], b = x[ib];
        x[ia] = a * c - b * s;
        x[ib] = a * s + b * c;
    }
}

int main(int argc, char **argv) {
    static char line[1 << 16];
    float x[MAX_DIM];
    int d = 0;
    if (argc != 2 || !fgets(line, sizeof line, stdin)) {
        fprintf(stderr, "usage: %s THETA < inputs.csv > out.csv\n", argv[0]);
        return 2;
    }
    float theta = strtof(argv[1], NULL);
    for (char *c = line; *c; c++) d += (*c == ','); /* header: position,x0,...,x{d-1} */
    if (d < 2 || d > MAX_DIM || d % 2) return 2;
    printf("position");
    for (int k = 0; k < d; k++) printf(",y%d", k);
    printf("\n");
    while (fgets(line, sizeof line, stdin)) {
        char *cur = line;
        double p = strtod(cur, &cur);
        for (int k = 0; k < d; k++) x[k] = strtof(cur + 1, &cur); /* +1 skips the comma */
        rope_row(x, d, (float)p, theta);
        printf("%.17g", p);
        for (int k = 0; k < d; k++) printf(",%.9g", x[k]); /* %.9g round-trips float32 */
        printf("\n");
    }
    return 0;
}
