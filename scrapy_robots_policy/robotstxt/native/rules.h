/* The rules builder and matcher of the compiled build, in C: what read.c, match.c and
 * module.c share.
 *
 * The same answers as rules.py and matcher.py, which stay the definition: the tests run
 * both on random groups and on every question of the corpus and require identical
 * decisions and reports (tests/test_engine_compiled.py). Only groups whose text is ASCII
 * without a "%" are read here (no percent-encoding to normalise); the pure engine reads
 * the others.
 *
 * Why C: a first question reads the rule lines of the crawler's groups. Python's
 * regular expressions read them at about 110 MB/s, so 500 KiB of rules cost 9 ms
 * before a single rule is compiled; here the whole build takes a few milliseconds.
 */
#ifndef ROBOTS_POLICY_RULES_H
#define ROBOTS_POLICY_RULES_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* How the part of a pattern after its literal prefix is matched (patterns.py). */
enum { PLAIN, EXACT, FIND, ENDS, GLOB, GLOB_ENDS };

/* Offsets and sizes fit 32 bits: a parsed file is at most 500 KiB (lines.MAX_BYTES), its
 * patterns at most three times that ("$" written "%24"), and ``read`` takes no more. */
#define MAX_DATA (1 << 24)

typedef struct {
    int32_t prio;       /* the normalised pattern's length */
    int32_t line;
    int32_t pattern;    /* offset of the normalised pattern in the pool */
    int32_t body;       /* offset of the pattern without a final "$", "**" as "*" */
    int32_t body_len;
    int32_t prefix_len; /* the literal prefix: the body up to its first "*" */
    int32_t last;       /* offset in the body of the last piece (after the last "*") */
    int32_t grams;      /* its grams (see ``piece_grams``): grams[grams .. + gram_count) */
    uint16_t gram_count;
    char allow;
    char kind;
} Rule;

typedef struct {
    int32_t offset, size; /* the prefix, in the pool */
    int32_t parent;       /* the longest other prefix that is a prefix of it, or -1 */
    int32_t plain;        /* the plain rule of this pattern (allow preferred), or -1 */
    int32_t wild, count;  /* its other rules: order[wild .. wild + count), best first */
} Key;

/* A matcher's tables: the rules, and their prefixes sorted with their parents. */
typedef struct {
    char *pool; /* the patterns, and bodies where they differ */
    uint32_t *grams;
    Rule *rules;
    Key *keys;
    int32_t *order;
    Py_ssize_t rule_count, key_count;
    int32_t top; /* the longest rule with a "*" or "$" */
} Tables;

/* The rules as they are read, then compiled and filed into Tables. */
typedef struct {
    char *pool;
    Py_ssize_t pool_len, pool_cap;
    Rule *rules;
    Py_ssize_t count, cap;
    uint32_t *grams;
    Py_ssize_t gram_count, gram_cap;
    int crawl_delay_lines;
} Builder;

static inline uint64_t hash_bytes(const char *p, Py_ssize_t n, uint64_t h) {
    for (Py_ssize_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
    return h;
}

/* The size of an open-addressing table for ``n`` items: a power of two, half empty. */
static inline Py_ssize_t table_size(Py_ssize_t n) {
    Py_ssize_t size = 16;
    while (size < 2 * n) size *= 2;
    return size;
}

/* ``buffer`` with room for ``need`` items of ``size`` octets, its capacity ``*cap``
 * doubled as needed (from ``first``): the same block, a moved one, or NULL when memory
 * runs out (``buffer`` is then still valid, and ``*cap`` unchanged). */
static inline void *with_room(void *buffer, Py_ssize_t *cap, Py_ssize_t need, size_t size,
                              Py_ssize_t first) {
    if (need <= *cap) return buffer;
    Py_ssize_t grown = *cap ? *cap : first;
    while (grown < need) grown *= 2;
    void *moved = PyMem_Realloc(buffer, (size_t)grown * size);
    if (moved != NULL) *cap = grown;
    return moved;
}

/* read.c: lines to rules (lines.py's grammar, rules.py's reading). */
int reserve_pool(Builder *b, Py_ssize_t more);
int read_group(Builder *b, const char *data, Py_ssize_t start, Py_ssize_t end, Py_ssize_t line);
int keep_first_lines(Builder *b);
void free_builder(Builder *b);

/* match.c: compiled patterns, the tables, questions (patterns.py, matcher.py). */
int compile_rule(Builder *b, Rule *rule);
int file_rules(Tables *tables, Builder *b); /* takes the builder's buffers */
void free_tables(Tables *tables);
Py_ssize_t find_best(const Tables *tables, const char *path, Py_ssize_t n);
Py_ssize_t *matching_rules(const Tables *tables, const char *path, Py_ssize_t n,
                           Py_ssize_t *count);

#endif
