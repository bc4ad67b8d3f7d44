/*
 * Reference exact top-k scan for the vector-search benchmark: the same scan CUGAr's exact
 * index runs (unit float32 rows, products summed in double with four accumulators, a bounded
 * top-k), in plain C built with `cc -O2`.
 *
 * Input file (little-endian): u32 rows, u32 dimension, u32 queries, u32 k, then rows × dimension
 * float32 values, then queries × dimension float32 values (all unit length).
 * Usage: flatscan FILE PASSES. After PASSES - 1 untimed passes over every query, prints one
 * line per query of the last pass: its milliseconds, then its top-k row numbers, best first.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void scan(const float *data, uint32_t rows, uint32_t dim, const float *q, uint32_t k, double *best, uint32_t *at) {
  uint32_t held = 0;
  uint32_t body = dim - (dim & 3);
  for (uint32_t r = 0; r < rows; r++) {
    const float *v = data + (size_t)r * dim;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    uint32_t i = 0;
    for (; i < body; i += 4) {
      s0 += (double)q[i] * v[i];
      s1 += (double)q[i + 1] * v[i + 1];
      s2 += (double)q[i + 2] * v[i + 2];
      s3 += (double)q[i + 3] * v[i + 3];
    }
    for (; i < dim; i++) s0 += (double)q[i] * v[i];
    double score = s0 + s1 + (s2 + s3);
    if (held == k && score <= best[k - 1]) continue;
    uint32_t j = held < k ? held++ : k - 1;
    while (j > 0 && best[j - 1] < score) {
      best[j] = best[j - 1];
      at[j] = at[j - 1];
      j--;
    }
    best[j] = score;
    at[j] = r;
  }
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: flatscan FILE PASSES\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  uint32_t header[4];
  if (fread(header, 4, 4, f) != 4) return 1;
  uint32_t rows = header[0], dim = header[1], queries = header[2], k = header[3];
  float *data = malloc((size_t)rows * dim * 4);
  float *qs = malloc((size_t)queries * dim * 4);
  double *best = malloc(k * sizeof(double));
  uint32_t *at = malloc(k * sizeof(uint32_t));
  if (!data || !qs || !best || !at) return 1;
  if (fread(data, 4, (size_t)rows * dim, f) != (size_t)rows * dim) return 1;
  if (fread(qs, 4, (size_t)queries * dim, f) != (size_t)queries * dim) return 1;
  fclose(f);
  int passes = atoi(argv[2]);
  for (int pass = 0; pass < passes; pass++) {
    for (uint32_t q = 0; q < queries; q++) {
      double started = now_ms();
      scan(data, rows, dim, qs + (size_t)q * dim, k, best, at);
      double ms = now_ms() - started;
      if (pass != passes - 1) continue;
      printf("%.4f", ms);
      for (uint32_t j = 0; j < k; j++) printf(" %u", at[j]);
      printf("\n");
    }
  }
  return 0;
}
