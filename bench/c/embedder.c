/*
 * The reference for CUGAr's HashingEmbedder (src/core/embed/hashingEmbedder.ts) in C, built by
 * bench/embedder.bench.ts with the system compiler (`cc -O2`). The same algorithm over the
 * ASCII subset: lower-case ASCII words of letters and digits, FNV-1a over their characters
 * finalised with MurmurHash3's fmix32, ordered word pairs hashed with hashPair, every feature
 * counted in an open-addressing table cleared by a generation stamp and weighted 1 + ln tf by
 * adding ln n - ln(n - 1) at its nth occurrence into a signed bucket of a double accumulator,
 * then L2-normalised into floats. Bytes outside ASCII separate words (the bench corpus is ASCII).
 *
 * Input (stdin): a sequence of documents, each a 4-byte little-endian length then its bytes.
 * Usage:
 *   embedder vectors <dimension>          writes every document's vector (float32, little-endian) to stdout
 *   embedder time <dimension> <passes>    embeds the corpus <passes> times, prints each pass's milliseconds
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FNV_OFFSET 0x811c9dc5u
#define FNV_PRIME 0x01000193u
#define LOG_TABLE_SIZE 256

static double tf_step[LOG_TABLE_SIZE];

static uint32_t fmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

static uint32_t hash_pair(uint32_t first, uint32_t second) { return fmix32((first * 0x9e3779b1u) ^ second ^ 0x5bd1e995u); }

typedef struct {
  uint32_t key;
  uint32_t stamp;
  uint32_t count;
  uint32_t unused;
} slot_t;

typedef struct {
  size_t dimension;
  slot_t *table;
  size_t slots;
  uint32_t generation;
  double *acc;
} embedder_t;

static void resize(embedder_t *e, size_t features) {
  size_t slots = e->slots;
  while (slots * 2 < features * 3) slots *= 2;
  free(e->table);
  e->table = calloc(slots, sizeof(slot_t));
  e->slots = slots;
  e->generation = 0;
}

static void count_feature(embedder_t *e, uint32_t generation, uint32_t feature) {
  size_t mask = e->slots - 1;
  size_t bucket = (e->dimension & (e->dimension - 1)) == 0 ? (feature & (e->dimension - 1)) : feature % e->dimension;
  double sign = (double)(1 - (int)((feature >> 31) << 1));
  size_t slot = feature & mask;
  for (;;) {
    slot_t *s = &e->table[slot];
    if (s->stamp != generation) {
      s->key = feature;
      s->stamp = generation;
      s->count = 1;
      e->acc[bucket] += sign;
      return;
    }
    if (s->key == feature) {
      uint32_t count = ++s->count;
      double step = count < LOG_TABLE_SIZE ? tf_step[count] : log((double)count) - log((double)count - 1);
      e->acc[bucket] += step * sign;
      return;
    }
    slot = (slot + 1) & mask;
  }
}

static void embed(embedder_t *e, const uint8_t *text, size_t length, float *out) {
  if ((length + 1) * 3 > e->slots * 2) resize(e, length + 1);
  uint32_t generation = e->generation + 1;
  if (generation == 0 || generation > 0x7fffffffu) {
    memset(e->table, 0, e->slots * sizeof(slot_t));
    generation = 1;
  }
  e->generation = generation;
  memset(e->acc, 0, e->dimension * sizeof(double));
  uint32_t hash = FNV_OFFSET;
  int in_word = 0;
  uint32_t previous = 0;
  int have_previous = 0;
  for (size_t i = 0; i <= length; i++) {
    uint32_t c = i < length ? text[i] : 0x20;
    if (c >= 'A' && c <= 'Z') c |= 0x20;
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      hash = (hash ^ c) * FNV_PRIME;
      in_word = 1;
      continue;
    }
    if (!in_word) continue;
    in_word = 0;
    uint32_t word = fmix32(hash);
    hash = FNV_OFFSET;
    count_feature(e, generation, word);
    if (have_previous) count_feature(e, generation, hash_pair(previous, word));
    previous = word;
    have_previous = 1;
  }
  double norm = 0;
  for (size_t i = 0; i < e->dimension; i++) norm += e->acc[i] * e->acc[i];
  if (norm == 0) {
    memset(out, 0, e->dimension * sizeof(float));
    return;
  }
  double scale = 1 / sqrt(norm);
  for (size_t i = 0; i < e->dimension; i++) out[i] = (float)(e->acc[i] * scale);
}

typedef struct {
  uint8_t *bytes;
  size_t *offsets;
  size_t *lengths;
  size_t count;
} corpus_t;

static corpus_t read_corpus(void) {
  size_t capacity = 1 << 20, size = 0;
  uint8_t *data = malloc(capacity);
  size_t n;
  while ((n = fread(data + size, 1, capacity - size, stdin)) > 0) {
    size += n;
    if (size == capacity) data = realloc(data, capacity *= 2);
  }
  corpus_t corpus = {data, NULL, NULL, 0};
  size_t docs = 0, room = 1024;
  corpus.offsets = malloc(room * sizeof(size_t));
  corpus.lengths = malloc(room * sizeof(size_t));
  for (size_t at = 0; at + 4 <= size;) {
    size_t length = (size_t)data[at] | (size_t)data[at + 1] << 8 | (size_t)data[at + 2] << 16 | (size_t)data[at + 3] << 24;
    at += 4;
    if (at + length > size) {
      fprintf(stderr, "truncated corpus\n");
      exit(2);
    }
    if (docs == room) {
      room *= 2;
      corpus.offsets = realloc(corpus.offsets, room * sizeof(size_t));
      corpus.lengths = realloc(corpus.lengths, room * sizeof(size_t));
    }
    corpus.offsets[docs] = at;
    corpus.lengths[docs] = length;
    docs++;
    at += length;
  }
  corpus.count = docs;
  return corpus;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: embedder vectors <dimension> | embedder time <dimension> <passes>\n");
    return 2;
  }
  for (int n = 0; n < LOG_TABLE_SIZE; n++) tf_step[n] = n < 2 ? 1 : log((double)n) - log((double)n - 1);
  embedder_t e = {(size_t)atoi(argv[2]), NULL, 1024, 0, NULL};
  if (e.dimension < 1) return 2;
  e.table = calloc(e.slots, sizeof(slot_t));
  e.acc = malloc(e.dimension * sizeof(double));
  float *out = malloc(e.dimension * sizeof(float));
  corpus_t corpus = read_corpus();
  if (strcmp(argv[1], "vectors") == 0) {
    for (size_t d = 0; d < corpus.count; d++) {
      embed(&e, corpus.bytes + corpus.offsets[d], corpus.lengths[d], out);
      fwrite(out, sizeof(float), e.dimension, stdout);
    }
    return 0;
  }
  if (strcmp(argv[1], "time") == 0 && argc >= 4) {
    int passes = atoi(argv[3]);
    volatile float sink = 0;
    for (int p = 0; p < passes; p++) {
      double started = now_ms();
      for (size_t d = 0; d < corpus.count; d++) {
        embed(&e, corpus.bytes + corpus.offsets[d], corpus.lengths[d], out);
        sink += out[0];
      }
      printf("%.4f\n", now_ms() - started);
    }
    return 0;
  }
  fprintf(stderr, "unknown mode %s\n", argv[1]);
  return 2;
}
