/* Lines to rules: a group's rule lines read as lines.py's grammar reads them
 * (ALLOW_VALUE, DISALLOW_VALUE): blanks, a key recognised by its prefix, a separator (the
 * first colon; without one, blanks before exactly one more word), blanks, a value up to a
 * comment, its trailing blanks left out. Then each value normalised and kept at its first
 * line, as rules.py does. */
#include "rules.h"

int reserve_pool(Builder *b, Py_ssize_t more) {
    char *pool = with_room(b->pool, &b->pool_cap, b->pool_len + more, 1, 4096);
    if (pool == NULL) return -1;
    b->pool = pool;
    return 0;
}

static Rule *new_rule(Builder *b) {
    Rule *rules = with_room(b->rules, &b->cap, b->count + 1, sizeof(Rule), 64);
    if (rules == NULL) return NULL;
    b->rules = rules;
    Rule *rule = &b->rules[b->count++];
    memset(rule, 0, sizeof(Rule));
    return rule;
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }
static int is_space(char c) { return is_blank(c) || c == '\n' || c == '\r'; }

/* Whether ``key`` (lower case) starts the line at ``p``, ASCII case ignored. */
static int starts_with_key(const char *p, const char *end, const char *key) {
    for (; *key; key++, p++) {
        if (p == end) return 0;
        char c = *p;
        if (c >= 'A' && c <= 'Z') c = (char)(c + 32);
        if (c != *key) return 0;
    }
    return 1;
}

static const char *DISALLOW_SPELLINGS[] = {"disallow", "dissallow", "dissalow",
                                           "disalow",  "diasllow",  "disallaw"};

/* Where the value starts after a key ending at ``p`` (the separator: up to the first
 * colon; or, with no colon before a comment, blanks then exactly one more word), or NULL
 * when the line is no rule. */
static const char *after_separator(const char *p, const char *end) {
    const char *q = p;
    while (q < end && *q != ':' && *q != '#') q++;
    if (q < end && *q == ':') return q + 1;
    const char *stop = q; /* the comment or the line's end */
    q = p;
    while (q < stop && *q != ' ' && *q != '\t') q++; /* the rest of the first word */
    if (q == stop) return NULL;
    while (q < stop && (*q == ' ' || *q == '\t')) q++;
    const char *value = q;
    while (q < stop && (*q == '\v' || *q == '\f')) q++;
    if (q == stop || is_space(*q)) return NULL;
    const char *word_end = stop;
    while (word_end > q && is_blank(word_end[-1])) word_end--;
    for (const char *w = q; w < word_end; w++) {
        if (*w == ' ' || *w == '\t') return NULL; /* a third word */
    }
    return value;
}

/* The value of a rule line [p, end): its start and length; 1 (allow), 0 (disallow), or
 * -1 when the line is no rule (2 when its key starts with "crawl"). */
static int read_line(const char *p, const char *end, const char **value, Py_ssize_t *size) {
    while (p < end && is_blank(*p)) p++;
    int allow = -1;
    const char *key_end = NULL;
    if (starts_with_key(p, end, "allow")) {
        allow = 1;
        key_end = p + 5;
    } else {
        for (size_t i = 0; i < sizeof(DISALLOW_SPELLINGS) / sizeof(char *); i++) {
            if (starts_with_key(p, end, DISALLOW_SPELLINGS[i])) {
                allow = 0;
                key_end = p + strlen(DISALLOW_SPELLINGS[i]);
                break;
            }
        }
    }
    if (allow < 0) return starts_with_key(p, end, "crawl") ? 2 : -1;
    const char *v = after_separator(key_end, end);
    if (v == NULL) return -1;
    while (v < end && is_blank(*v)) v++;
    const char *v_end = v;
    while (v_end < end && *v_end != '#') v_end++;
    while (v_end > v && is_space(v_end[-1])) v_end--;
    *value = v;
    *size = v_end - v;
    return allow;
}

/* File one rule: its pattern normalised into the pool ("$" before the end is "%24"). */
static int add_rule(Builder *b, const char *value, Py_ssize_t size, int allow, Py_ssize_t line) {
    Py_ssize_t dollars = 0;
    for (Py_ssize_t i = 0; i + 1 < size; i++) dollars += value[i] == '$';
    if (reserve_pool(b, size + 2 * dollars) < 0) return -1;
    Rule *rule = new_rule(b);
    if (rule == NULL) return -1;
    char *out = b->pool + b->pool_len;
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < size; i++) {
        if (value[i] == '$' && i + 1 < size) {
            memcpy(out + n, "%24", 3);
            n += 3;
        } else {
            out[n++] = value[i];
        }
    }
    rule->pattern = b->pool_len;
    rule->prio = n;
    rule->line = line;
    rule->allow = (char)allow;
    b->pool_len += n;
    return 0;
}

/* Google-specific: allowing ".../index.htm(l)" also allows ".../" exactly. */
static int add_index_page(Builder *b, Py_ssize_t rule_index) {
    Rule rule = b->rules[rule_index];
    const char *pattern = b->pool + rule.pattern;
    Py_ssize_t slash = rule.prio - 1;
    while (slash >= 0 && pattern[slash] != '/') slash--;
    if (slash < 0 || rule.prio - slash < 10 || memcmp(pattern + slash, "/index.htm", 10) != 0)
        return 0;
    if (reserve_pool(b, slash + 2) < 0) return -1;
    pattern = b->pool + rule.pattern; /* the pool may have moved */
    Rule *directory = new_rule(b);
    if (directory == NULL) return -1;
    memcpy(b->pool + b->pool_len, pattern, (size_t)slash + 1);
    b->pool[b->pool_len + slash + 1] = '$';
    directory->pattern = b->pool_len;
    directory->prio = slash + 2;
    directory->line = rule.line;
    directory->allow = 1;
    b->pool_len += slash + 2;
    return 0;
}

/* Read the rule lines of data[start:end), the first of them line ``line``. */
int read_group(Builder *b, const char *data, Py_ssize_t start, Py_ssize_t end,
                      Py_ssize_t line) {
    const char *p = data + start, *stop = data + end;
    for (;;) {
        const char *newline = memchr(p, '\n', (size_t)(stop - p));
        const char *line_end = newline ? newline : stop;
        const char *value;
        Py_ssize_t size;
        int allow = read_line(p, line_end, &value, &size);
        if (allow == 2) {
            b->crawl_delay_lines = 1;
        } else if (allow >= 0 && size > 0) {
            if (add_rule(b, value, size, allow, line) < 0) return -1;
            if (allow && add_index_page(b, b->count - 1) < 0) return -1;
        }
        if (newline == NULL) return 0;
        p = newline + 1;
        line++;
    }
}

/* Keep the first line of each (allow, pattern): the rules are in file order. */
int keep_first_lines(Builder *b) {
    Py_ssize_t size = table_size(b->count), kept = 0;
    Py_ssize_t *table = PyMem_Malloc((size_t)size * sizeof(Py_ssize_t));
    if (table == NULL) return -1;
    memset(table, 0xff, (size_t)size * sizeof(Py_ssize_t));
    for (Py_ssize_t i = 0; i < b->count; i++) {
        Rule *rule = &b->rules[i];
        const char *pattern = b->pool + rule->pattern;
        uint64_t h = hash_bytes(pattern, rule->prio, 14695981039346656037ULL ^ (uint64_t)rule->allow);
        Py_ssize_t slot = (Py_ssize_t)(h & (uint64_t)(size - 1));
        int seen = 0;
        while (table[slot] >= 0) {
            Rule *other = &b->rules[table[slot]];
            if (other->allow == rule->allow && other->prio == rule->prio &&
                memcmp(b->pool + other->pattern, pattern, (size_t)rule->prio) == 0) {
                seen = 1;
                break;
            }
            slot = (slot + 1) & (size - 1);
        }
        if (seen) continue;
        b->rules[kept] = *rule;
        table[slot] = kept++;
    }
    b->count = kept;
    PyMem_Free(table);
    return 0;
}

void free_builder(Builder *b) {
    PyMem_Free(b->pool);
    PyMem_Free(b->rules);
    PyMem_Free(b->grams);
    b->pool = NULL;
    b->rules = NULL;
    b->grams = NULL;
}
