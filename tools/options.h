/*
 * options — the one command-line option parser of the `simpler` program.
 *
 * A command declares its options in a table of options_spec and walks
 * argv with options_next, which reports each argument as one item: a
 * positional argument, a request for help, a declared option with its
 * value already checked, or a mistake that names the argument at fault.
 * What a command does with an item (stop at the first mistake, remember
 * it, let a later positional override an earlier one) stays with the
 * command, so each keeps its own rules while sharing one tokenizer.
 *
 * Rules every command gets:
 * - "--help" and "-h" are always help, wherever they appear as an
 *   argument of their own (never when taken as an option's value).
 * - An argument that does not start with '-' (the empty one included) is
 *   positional.
 * - An option that takes a value takes the next argument verbatim, even
 *   one that starts with '-'. When that value is refused, only the option
 *   is consumed: the refused value is read again as the next argument.
 */
#ifndef SIMPLER_TOOLS_OPTIONS_H
#define SIMPLER_TOOLS_OPTIONS_H

/* What an option takes. */
typedef enum options_kind {
    OPTIONS_FLAG,   /* nothing: --json */
    OPTIONS_TEXT,   /* any next argument: --trace FILE */
    OPTIONS_COUNT,  /* a decimal count in 1..max, parsed whole (strtol; "2x" is refused) */
    OPTIONS_CHOICE, /* one of `choices`: --mode kernel|program */
} options_kind;

/* One declared option. */
typedef struct options_spec {
    const char *name;           /* "--replays" */
    const char *alias;          /* a second spelling ("-o"), or NULL */
    options_kind kind;
    long max;                   /* OPTIONS_COUNT: the largest count accepted */
    const char *const *choices; /* OPTIONS_CHOICE: NULL-terminated; else NULL */
} options_spec;

/* What one argument turned out to be. */
typedef enum options_event {
    OPTIONS_END,        /* argv is exhausted */
    OPTIONS_POSITIONAL, /* an argument not starting with '-' */
    OPTIONS_HELP,       /* --help or -h */
    OPTIONS_OPTION,     /* a declared option, its value (if any) accepted */
    OPTIONS_UNKNOWN,    /* starts with '-' and is not declared */
    OPTIONS_NO_VALUE,   /* a declared option that takes a value, last on the line */
    OPTIONS_BAD_VALUE,  /* a declared option whose value was refused (not consumed) */
} options_event;

typedef struct options_item {
    options_event event;
    int index;         /* OPTION, NO_VALUE, BAD_VALUE: the option's index in the table; else -1 */
    const char *arg;   /* the argument as written (the option itself for an option); NULL at END */
    const char *value; /* OPTION and BAD_VALUE of an option with a value: that value; else NULL */
    long count;        /* OPTION of kind OPTIONS_COUNT: the count; else 0 */
} options_item;

/* The walk over one command line. */
typedef struct options_parser {
    int argc;
    char **argv;
    int next; /* the next argument to read */
    const options_spec *specs;
    int spec_count;
} options_parser;

/* Starts a walk over argv[1..argc-1] (argv[0] is the command's name)
 * against `spec_count` options of `specs`, both borrowed for the walk. */
void options_init(options_parser *p, int argc, char **argv, const options_spec *specs, int spec_count);

/* Reads the next argument (and its value) into *item and returns
 * item->event; OPTIONS_END, again and again, once argv is exhausted. */
options_event options_next(options_parser *p, options_item *item);

/* Writes into `msg` (`size` bytes, NUL-terminated, truncated to fit) the
 * one-line reason item `it` of a walk over `specs` is a usage error,
 * naming the option and the value at fault:
 *   UNKNOWN    "unknown option '--foo'"
 *   NO_VALUE   "--trace needs a value"
 *   BAD_VALUE  "--replays '2x': not a count in 1..1000000" (a count),
 *              "--mode 'bogus': not one of kernel, program" (a choice)
 *   POSITIONAL "unexpected argument 'x'"
 * Any other event writes "". */
void options_error(const options_item *it, const options_spec *specs, char *msg, unsigned size);

#endif
