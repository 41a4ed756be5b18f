/* Rotary position embedding as a CUDA kernel, float32, default schedule, halves pairing.
 * The same input and output files as rope_kernel.c (the inputs of `pespec rope inputs`):
 *   nvcc -O2 -o rope_kernel_cuda rope_kernel.cu        (no --use_fast_math: see the guide)
 *   pespec rope inputs --config Llama-2-7B -o inputs.csv
 *   ./rope_kernel_cuda 10000 < inputs.csv > out.csv
 *   pespec rope check --from-file out.csv --config Llama-2-7B --level float32
 * inv_freq is computed once on the host in float32 (as transformers does); one thread per
 * (row, pair) forms the phase p * inv_freq in float32 and rotates the pair.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_DIM 1024
#define MAX_ROWS 4096

__global__ void rope_kernel(float *x, const float *positions, const float *inv_freq,
                            int rows, int d) {
    int half = d / 2;
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= rows * half) return;
    int r = t / half, j = t % half;
    float *row = x + (size_t)r * d;
    int ia = j, ib = j + half; /* halves pairing: (x[j], x[j + d/2]) */
    float s, c;
    sincosf(positions[r] * inv_freq[j], &s, &c);
    float a = row[ia], b = row[ib];
    row[ia] = a * c - b * s;
    row[ib] = a * s + b * c;
}

static int check(cudaError_t status, const char *what) {
    if (status != cudaSuccess) fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
    return status != cudaSuccess;
}

int main(int argc, char **argv) {
    static char line[1 << 16];
    static float x[MAX_ROWS * MAX_DIM], positions[MAX_ROWS];
    static double given[MAX_ROWS];
    float inv_freq[MAX_DIM / 2];
    int d = 0, rows = 0;
    if (argc != 2 || !fgets(line, sizeof line, stdin)) {
        fprintf(stderr, "usage: %s THETA < inputs.csv > out.csv\n", argv[0]);
        return 2;
    }
    float theta = strtof(argv[1], NULL);
    for (char *c = line; *c; c++) d += (*c == ','); /* header: position,x0,...,x{d-1} */
    if (d < 2 || d > MAX_DIM || d % 2) return 2;
    while (rows < MAX_ROWS && fgets(line, sizeof line, stdin)) {
        char *cur = line;
        given[rows] = strtod(cur, &cur);
        positions[rows] = (float)given[rows];
        for (int k = 0; k < d; k++) x[rows * d + k] = strtof(cur + 1, &cur);
        rows++;
    }
    for (int j = 0; j < d / 2; j++) inv_freq[j] = 1.0f / powf(theta, (float)(2 * j) / (float)d);
    float *dx, *dp, *df;
    size_t nx = (size_t)rows * d * sizeof(float);
    if (check(cudaMalloc(&dx, nx), "cudaMalloc") ||
        check(cudaMalloc(&dp, rows * sizeof(float)), "cudaMalloc") ||
        check(cudaMalloc(&df, d / 2 * sizeof(float)), "cudaMalloc"))
        return 1;
    cudaMemcpy(dx, x, nx, cudaMemcpyHostToDevice);
    cudaMemcpy(dp, positions, rows * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(df, inv_freq, d / 2 * sizeof(float), cudaMemcpyHostToDevice);
    int threads = rows * (d / 2);
    rope_kernel<<<(threads + 255) / 256, 256>>>(dx, dp, df, rows, d);
    if (check(cudaGetLastError(), "launch") ||
        check(cudaMemcpy(x, dx, nx, cudaMemcpyDeviceToHost), "cudaMemcpy"))
        return 1;
    printf("position");
    for (int k = 0; k < d; k++) printf(",y%d", k);
    printf("\n");
    for (int r = 0; r < rows; r++) {
        printf("%.17g", given[r]);
        for (int k = 0; k < d; k++) printf(",%.9g", x[r * d + k]); /* round-trips float32 */
        printf("\n");
    }
    cudaFree(dx);
    cudaFree(dp);
    cudaFree(df);
    return 0;
}
