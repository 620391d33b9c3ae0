/* Compiled patterns (patterns.compile_pattern), the tables a question walks (as in
 * matcher.py: the rules filed by literal prefix, the prefixes sorted, each with its
 * longest proper prefix among them), and the questions. */
#include "rules.h"

/* A gram: 1 to 4 octets of a path or a piece, with its width (ASCII: 7 bits each). */
static uint32_t gram_at(const char *p, int width) {
    uint32_t gram = (uint32_t)width << 28;
    for (int i = 0; i < width; i++) gram |= (uint32_t)((unsigned char)p[i] & 0x7f) << (7 * i);
    return gram;
}

/* What a rule's match requires of a path beyond its prefix: for each piece after a
 * "*", the grams starting and ending it (up to 4 octets wide). A long path is checked
 * for them before any search (``holds_grams``). */
static int piece_grams(Builder *b, Rule *rule, const char *body, Py_ssize_t body_len) {
    rule->grams = b->gram_count;
    Py_ssize_t piece = rule->prefix_len + 1;
    while (piece <= body_len) {
        const char *star = memchr(body + piece, '*', (size_t)(body_len - piece));
        Py_ssize_t size = (star ? star - body : body_len) - piece;
        int width = size < 4 ? (int)size : 4;
        if (width > 0) {
            uint32_t *grams =
                with_room(b->grams, &b->gram_cap, b->gram_count + 2, sizeof(uint32_t), 64);
            if (grams == NULL) return -1;
            b->grams = grams;
            b->grams[b->gram_count++] = gram_at(body + piece, width);
            b->grams[b->gram_count++] = gram_at(body + piece + size - width, width);
        }
        piece += size + 1;
    }
    rule->gram_count = b->gram_count - rule->grams;
    return 0;
}

/* A rule's kind, body, prefix and last piece (patterns.compile_pattern). */
int compile_rule(Builder *b, Rule *rule) {
    if (rule->prio <= 0) return 0; /* empty values are no rule, never filed */
    Py_ssize_t anchored = b->pool[rule->pattern + rule->prio - 1] == '$';
    Py_ssize_t body_len = rule->prio - anchored;
    const char *body = b->pool + rule->pattern;
    const char *star = memchr(body, '*', (size_t)body_len);
    rule->body = rule->pattern;
    rule->body_len = body_len;
    if (star == NULL) {
        rule->kind = anchored ? EXACT : PLAIN;
        rule->prefix_len = body_len;
        return 0;
    }
    Py_ssize_t stars = 0, runs = 0;
    for (Py_ssize_t i = 0; i < body_len; i++) {
        if (body[i] == '*') {
            stars++;
            runs += i == 0 || body[i - 1] != '*';
        }
    }
    if (stars != runs) { /* "**" matches what "*" does: no empty pieces */
        if (reserve_pool(b, body_len) < 0) return -1;
        body = b->pool + rule->pattern;
        char *out = b->pool + b->pool_len;
        Py_ssize_t n = 0;
        for (Py_ssize_t i = 0; i < body_len; i++) {
            if (body[i] != '*' || n == 0 || out[n - 1] != '*') out[n++] = body[i];
        }
        rule->body = b->pool_len;
        rule->body_len = n;
        b->pool_len += n;
        body = out;
        body_len = n;
    }
    rule->prefix_len = (const char *)memchr(body, '*', (size_t)body_len) - body;
    Py_ssize_t last = body_len;
    while (body[last - 1] != '*') last--;
    rule->last = last;
    rule->kind = runs > 1 ? (anchored ? GLOB_ENDS : GLOB) : (anchored ? ENDS : FIND);
    return piece_grams(b, rule, body, body_len);
}

/* --- the matcher's tables --------------------------------------------------------- */

static const char *sort_pool;
static const Key *sort_keys;
static const Rule *sort_rules;

static int compare_prefixes(const Key *a, const Key *b) {
    Py_ssize_t n = a->size < b->size ? a->size : b->size;
    int c = memcmp(sort_pool + a->offset, sort_pool + b->offset, (size_t)n);
    if (c) return c;
    return (a->size > b->size) - (a->size < b->size);
}

static int compare_key_indexes(const void *x, const void *y) {
    return compare_prefixes(&sort_keys[*(const Py_ssize_t *)x], &sort_keys[*(const Py_ssize_t *)y]);
}

/* Longest pattern, then allow, then earliest line. */
static int compare_best_first(const void *x, const void *y) {
    const Rule *a = &sort_rules[*(const int32_t *)x], *b = &sort_rules[*(const int32_t *)y];
    if (a->prio != b->prio) return a->prio > b->prio ? -1 : 1;
    if (a->allow != b->allow) return a->allow ? -1 : 1;
    return (a->line > b->line) - (a->line < b->line);
}

/* Whether rule ``a`` (matching) beats rule ``best`` (-1: none). */
static int better(const Rule *rules, Py_ssize_t a, Py_ssize_t best) {
    if (best < 0) return 1;
    const Rule *x = &rules[a], *y = &rules[best];
    if (x->prio != y->prio) return x->prio > y->prio;
    return (x->allow && !y->allow) || (x->allow == y->allow && x->line < y->line);
}

/* File the rules by literal prefix: sorted prefixes, their parents, best-first lists. */
int file_rules(Tables *self, Builder *b) {
    Py_ssize_t n = b->count, size = table_size(n), key_count = 0, wild_count = 0;
    size_t most = (size_t)(n ? n : 1);
    Py_ssize_t *table = PyMem_Malloc((size_t)size * sizeof(Py_ssize_t));
    Py_ssize_t *rule_key = PyMem_Malloc(most * sizeof(Py_ssize_t)); /* as first seen */
    Key *keys = PyMem_Calloc(most, sizeof(Key));
    Py_ssize_t *rank = PyMem_Malloc(most * sizeof(Py_ssize_t));
    Py_ssize_t *sorted = PyMem_Malloc(most * sizeof(Py_ssize_t));
    Key *final = PyMem_Calloc(most, sizeof(Key));
    int32_t *order = NULL;
    if (!table || !rule_key || !keys || !rank || !sorted || !final) goto fail;
    memset(table, 0xff, (size_t)size * sizeof(Py_ssize_t));
    for (Py_ssize_t i = 0; i < n; i++) {
        Rule *rule = &b->rules[i];
        const char *prefix = b->pool + rule->body;
        uint64_t h = hash_bytes(prefix, rule->prefix_len, 14695981039346656037ULL);
        Py_ssize_t slot = (Py_ssize_t)(h & (uint64_t)(size - 1));
        while (table[slot] >= 0) {
            Key *key = &keys[table[slot]];
            if (key->size == rule->prefix_len &&
                memcmp(b->pool + key->offset, prefix, (size_t)key->size) == 0)
                break;
            slot = (slot + 1) & (size - 1);
        }
        if (table[slot] < 0) {
            keys[key_count] = (Key){rule->body, rule->prefix_len, -1, -1, 0, 0};
            table[slot] = key_count++;
        }
        rule_key[i] = table[slot];
        wild_count += rule->kind != PLAIN;
    }
    for (Py_ssize_t k = 0; k < key_count; k++) sorted[k] = k;
    sort_pool = b->pool;
    sort_keys = keys;
    qsort(sorted, (size_t)key_count, sizeof(Py_ssize_t), compare_key_indexes);
    for (Py_ssize_t k = 0; k < key_count; k++) {
        rank[sorted[k]] = k;
        final[k] = keys[sorted[k]];
    }
    int32_t top = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Rule *rule = &b->rules[i];
        Key *key = &final[rank[rule_key[i]]];
        if (rule->kind == PLAIN) {
            if (key->plain < 0 || rule->allow) key->plain = (int32_t)i; /* allow wins */
        } else {
            key->count++;
            if (rule->prio > top) top = rule->prio;
        }
    }
    order = PyMem_Malloc((size_t)(wild_count ? wild_count : 1) * sizeof(int32_t));
    if (order == NULL) goto fail;
    int32_t filed = 0;
    for (Py_ssize_t k = 0; k < key_count; k++) {
        final[k].wild = filed;
        filed += final[k].count;
        final[k].count = 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (b->rules[i].kind != PLAIN) {
            Key *key = &final[rank[rule_key[i]]];
            order[key->wild + key->count++] = (int32_t)i;
        }
    }
    sort_rules = b->rules;
    for (Py_ssize_t k = 0; k < key_count; k++) {
        if (final[k].count > 1)
            qsort(order + final[k].wild, (size_t)final[k].count, sizeof(int32_t),
                  compare_best_first);
        /* The prefixes of a key in sort order are the previous key and its ancestors. */
        int32_t parent = (int32_t)k - 1;
        while (parent >= 0 &&
               !(final[parent].size <= final[k].size &&
                 memcmp(b->pool + final[parent].offset, b->pool + final[k].offset,
                        (size_t)final[parent].size) == 0))
            parent = final[parent].parent;
        final[k].parent = parent;
    }
    PyMem_Free(table);
    PyMem_Free(rule_key);
    PyMem_Free(keys);
    PyMem_Free(rank);
    PyMem_Free(sorted);
    /* Trimmed to size (a crawl keeps one per origin); a failed shrink keeps the block. */
    Key *trimmed = PyMem_Realloc(final, (size_t)(key_count ? key_count : 1) * sizeof(Key));
    self->keys = trimmed ? trimmed : final;
    self->key_count = key_count;
    self->order = order;
    self->top = top;
    char *pool = PyMem_Realloc(b->pool, (size_t)(b->pool_len ? b->pool_len : 1));
    self->pool = pool ? pool : b->pool;
    Rule *rules = PyMem_Realloc(b->rules, (size_t)(n ? n : 1) * sizeof(Rule));
    self->rules = rules ? rules : b->rules;
    self->rule_count = n;
    self->grams = b->grams;
    b->pool = NULL;
    b->rules = NULL;
    b->grams = NULL;
    return 0;
fail:
    PyMem_Free(table);
    PyMem_Free(rule_key);
    PyMem_Free(keys);
    PyMem_Free(rank);
    PyMem_Free(sorted);
    PyMem_Free(order);
    PyMem_Free(final);
    PyErr_NoMemory();
    return -1;
}

/* --- questions -------------------------------------------------------------------- */

/* The grams a path holds, hashed into a bitmap: built once per question, for long paths
 * only. Its size keeps it sparse (at most one bit in 16 set) up to 2 MB, for a path of
 * 256K characters; a longer one sets more bits, which lets more rules through to a
 * search, never fewer. */
typedef struct {
    uint64_t *bits;
    int shift; /* a hash's top bits index the bitmap */
    int failed;
} Grams;

/* Paths at least this long are checked against a rule's grams before a search. */
#define GRAM_CHECK_LENGTH 256

static uint32_t gram_hash(uint32_t gram, int shift) { return (gram * 2654435761u) >> shift; }

static int holds_grams(const Tables *self, Grams *grams, const char *path, Py_ssize_t n,
                       const Rule *rule) {
    if (rule->gram_count == 0) return 1; /* "/a*": nothing to look for */
    if (grams->bits == NULL && !grams->failed) {
        int log = 12;
        while (log < 24 && ((Py_ssize_t)1 << log) < 64 * n) log++;
        grams->bits = PyMem_Calloc((size_t)1 << (log - 6), sizeof(uint64_t));
        if (grams->bits == NULL) {
            grams->failed = 1; /* no filter: every rule is searched for */
        } else {
            grams->shift = 32 - log;
            for (Py_ssize_t i = 0; i < n; i++) {
                for (int width = 1; width <= 4 && i + width <= n; width++) {
                    uint32_t h = gram_hash(gram_at(path + i, width), grams->shift);
                    grams->bits[h >> 6] |= 1ULL << (h & 63);
                }
            }
        }
    }
    if (grams->bits == NULL) return 1;
    for (Py_ssize_t i = rule->grams; i < rule->grams + rule->gram_count; i++) {
        uint32_t h = gram_hash(self->grams[i], grams->shift);
        if (!(grams->bits[h >> 6] >> (h & 63) & 1)) return 0;
    }
    return 1;
}

/* Whether the rest of ``path`` after a rule's prefix matches the rule (tail_matches). */
static int tail_matches(const Tables *self, const Rule *rule, const char *path,
                        Py_ssize_t n, Grams *grams) {
    Py_ssize_t start = rule->prefix_len;
    switch (rule->kind) {
    case PLAIN:
        return 1;
    case EXACT:
        return n == start;
    default:
        break;
    }
    const char *body = self->pool + rule->body;
    Py_ssize_t last_len = rule->body_len - rule->last;
    if ((rule->kind == ENDS || rule->kind == GLOB_ENDS) &&
        (n - last_len < start || memcmp(path + n - last_len, body + rule->last, (size_t)last_len)))
        return 0;
    if (n >= GRAM_CHECK_LENGTH && rule->kind != ENDS && !holds_grams(self, grams, path, n, rule))
        return 0;
    Py_ssize_t piece = rule->prefix_len + 1;
    while (piece < rule->last) { /* the pieces between the stars, leftmost first */
        const char *star = memchr(body + piece, '*', (size_t)(rule->last - piece));
        Py_ssize_t size = star - (body + piece);
        const char *found = memmem(path + start, (size_t)(n - start), body + piece, (size_t)size);
        if (found == NULL) return 0;
        start = found - path + size;
        piece += size + 1;
    }
    if (rule->kind == FIND || rule->kind == GLOB)
        return memmem(path + start, (size_t)(n - start), body + rule->last, (size_t)last_len) != NULL;
    return n - last_len >= start;
}

/* What file_rules allocated, and the builder's buffers it took. */
void free_tables(Tables *tables) {
    PyMem_Free(tables->pool);
    PyMem_Free(tables->grams);
    PyMem_Free(tables->rules);
    PyMem_Free(tables->keys);
    PyMem_Free(tables->order);
}

/* The last prefix not greater than the path: every prefix of the path is it or one of
 * its ancestors. */
static Py_ssize_t last_not_after(const Tables *self, const char *path, Py_ssize_t n) {
    Py_ssize_t lo = 0, hi = self->key_count;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        const Key *key = &self->keys[mid];
        Py_ssize_t m = key->size < n ? key->size : n;
        int c = memcmp(self->pool + key->offset, path, (size_t)m);
        if (c < 0 || (c == 0 && key->size <= n))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

static int is_prefix(const Tables *self, const Key *key, const char *path, Py_ssize_t n) {
    return key->size <= n && memcmp(self->pool + key->offset, path, (size_t)key->size) == 0;
}

/* The deciding rule's index, or -1 (matcher.Matcher.find). */
Py_ssize_t find_best(const Tables *self, const char *path, Py_ssize_t n) {
    const Rule *rules = self->rules;
    Py_ssize_t best = -1, best_prio = 0;
    Grams grams = {NULL, 0, 0};
    for (Py_ssize_t k = last_not_after(self, path, n); k >= 0; k = self->keys[k].parent) {
        const Key *key = &self->keys[k];
        if (!is_prefix(self, key, path, n)) continue;
        if (key->plain >= 0 && (key->size > best_prio ||
                                (key->size == best_prio && better(rules, key->plain, best)))) {
            best = key->plain;
            best_prio = key->size;
        }
        for (Py_ssize_t j = key->wild; j < key->wild + key->count; j++) {
            Py_ssize_t i = self->order[j];
            if (rules[i].prio < best_prio) break;
            if (tail_matches(self, &rules[i], path, n, &grams)) {
                if (better(rules, i, best)) {
                    best = i;
                    best_prio = rules[i].prio;
                }
                break; /* the rest of this prefix's rules are no better */
            }
        }
        if (best_prio >= key->size && best_prio > self->top) break;
    }
    PyMem_Free(grams.bits);
    return best;
}

/* Every rule matching the path (report.explain): a new array of their numbers, or NULL
 * when memory runs out. */
Py_ssize_t *matching_rules(const Tables *self, const char *path, Py_ssize_t n,
                           Py_ssize_t *count) {
    Py_ssize_t size = 16;
    Py_ssize_t *found = PyMem_Malloc((size_t)size * sizeof(Py_ssize_t));
    Grams grams = {NULL, 0, 0};
    *count = 0;
    for (Py_ssize_t k = last_not_after(self, path, n); found && k >= 0; k = self->keys[k].parent) {
        const Key *key = &self->keys[k];
        if (!is_prefix(self, key, path, n)) continue;
        for (Py_ssize_t j = -1; found && j < key->count; j++) {
            Py_ssize_t i = j < 0 ? key->plain : self->order[key->wild + j];
            if (i < 0 || !tail_matches(self, &self->rules[i], path, n, &grams)) continue;
            Py_ssize_t *more = with_room(found, &size, *count + 1, sizeof(Py_ssize_t), 16);
            if (more == NULL) PyMem_Free(found);
            found = more;
            if (found == NULL) break;
            found[(*count)++] = i;
        }
    }
    PyMem_Free(grams.bits);
    return found;
}
