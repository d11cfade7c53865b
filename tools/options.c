/* The command-line option parser (options.h). */
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void options_init(options_parser *p, int argc, char **argv, const options_spec *specs, int spec_count)
{
    p->argc = argc;
    p->argv = argv;
    p->next = 1;
    p->specs = specs;
    p->spec_count = spec_count;
}

/* The index of the option spelled `arg`, or -1. */
static int spec_find(const options_parser *p, const char *arg)
{
    for (int i = 0; i < p->spec_count; i++) {
        const options_spec *s = &p->specs[i];
        if (strcmp(arg, s->name) == 0 || (s->alias != NULL && strcmp(arg, s->alias) == 0))
            return i;
    }
    return -1;
}

/* `text` as a count in 1..max (the whole string), or -1. */
static long count_parse(const char *text, long max)
{
    char *end = NULL;
    long n = strtol(text, &end, 10);
    return end != text && *end == '\0' && n >= 1 && n <= max ? n : -1;
}

static int choice_valid(const char *const *choices, const char *text)
{
    for (; *choices != NULL; choices++) {
        if (strcmp(*choices, text) == 0)
            return 1;
    }
    return 0;
}

/* 1 when `value` is acceptable for `s` (and *count, for a count, set). */
static int value_accept(const options_spec *s, const char *value, long *count)
{
    switch (s->kind) {
    case OPTIONS_COUNT:
        *count = count_parse(value, s->max);
        return *count > 0;
    case OPTIONS_CHOICE:
        return choice_valid(s->choices, value);
    default:
        return 1;
    }
}

static options_event item_set(options_item *item, options_event event, int index, const char *arg)
{
    item->event = event;
    item->index = index;
    item->arg = arg;
    item->value = NULL;
    item->count = 0;
    return event;
}

options_event options_next(options_parser *p, options_item *item)
{
    if (p->next >= p->argc)
        return item_set(item, OPTIONS_END, -1, NULL);
    const char *arg = p->argv[p->next++];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
        return item_set(item, OPTIONS_HELP, -1, arg);
    if (arg[0] != '-')
        return item_set(item, OPTIONS_POSITIONAL, -1, arg);
    int index = spec_find(p, arg);
    if (index < 0)
        return item_set(item, OPTIONS_UNKNOWN, -1, arg);
    const options_spec *s = &p->specs[index];
    if (s->kind == OPTIONS_FLAG)
        return item_set(item, OPTIONS_OPTION, index, arg);
    if (p->next >= p->argc)
        return item_set(item, OPTIONS_NO_VALUE, index, arg);
    const char *value = p->argv[p->next];
    long count = 0;
    if (!value_accept(s, value, &count)) {
        item_set(item, OPTIONS_BAD_VALUE, index, arg);
        item->value = value;
        return OPTIONS_BAD_VALUE;
    }
    p->next++;
    item_set(item, OPTIONS_OPTION, index, arg);
    item->value = value;
    item->count = count;
    return OPTIONS_OPTION;
}

/* "a, b, c" of a NULL-terminated choice list into msg at `at`. */
static void choices_list(const char *const *choices, char *msg, unsigned size, int at)
{
    for (int first = 1; *choices != NULL && at >= 0 && (unsigned)at < size; choices++, first = 0)
        at += snprintf(msg + at, size - (unsigned)at, "%s%s", first ? "" : ", ", *choices);
}

void options_error(const options_item *it, const options_spec *specs, char *msg, unsigned size)
{
    if (size == 0)
        return;
    msg[0] = '\0';
    const options_spec *s = it->index >= 0 ? &specs[it->index] : NULL;
    switch (it->event) {
    case OPTIONS_UNKNOWN:
        snprintf(msg, size, "unknown option '%s'", it->arg);
        break;
    case OPTIONS_NO_VALUE:
        snprintf(msg, size, "%s needs a value", it->arg);
        break;
    case OPTIONS_POSITIONAL:
        snprintf(msg, size, "unexpected argument '%s'", it->arg);
        break;
    case OPTIONS_BAD_VALUE:
        if (s != NULL && s->kind == OPTIONS_COUNT) {
            snprintf(msg, size, "%s '%s': not a count in 1..%ld", it->arg, it->value, s->max);
        } else if (s != NULL && s->kind == OPTIONS_CHOICE) {
            int at = snprintf(msg, size, "%s '%s': not one of ", it->arg, it->value);
            choices_list(s->choices, msg, size, at);
        } else {
            snprintf(msg, size, "%s '%s': refused", it->arg, it->value);
        }
        break;
    default:
        break;
    }
}
