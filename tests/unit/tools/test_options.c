/* The command line's option parser (tools/options.h): what each
 * argument is reported as, and which arguments a value consumes. */
#include "support.h"

#include <string.h>

#include "options.h"

enum { OPT_JSON, OPT_TRACE, OPT_RUNS, OPT_MODE, OPT_OUTPUT, OPTS };

#define RUNS_MAX 1000

static const char *const modes[] = {"kernel", "program", NULL};

static const options_spec specs[OPTS] = {
    [OPT_JSON] = {"--json", NULL, OPTIONS_FLAG, 0, NULL},
    [OPT_TRACE] = {"--trace", NULL, OPTIONS_TEXT, 0, NULL},
    [OPT_RUNS] = {"--runs", NULL, OPTIONS_COUNT, RUNS_MAX, NULL},
    [OPT_MODE] = {"--mode", NULL, OPTIONS_CHOICE, 0, modes},
    [OPT_OUTPUT] = {"--output", "-o", OPTIONS_TEXT, 0, NULL},
};

#define ARGS(...) ((char *[]){"cmd", __VA_ARGS__})
#define ARGC(...) ((int)(sizeof((char *[]){"cmd", __VA_ARGS__}) / sizeof(char *)))
#define WALK(p, ...) options_init((p), ARGC(__VA_ARGS__), ARGS(__VA_ARGS__), specs, OPTS)

static void next_is(options_parser *p, options_event event, int index, const char *arg, const char *value)
{
    options_item it;
    assert_int_equal(options_next(p, &it), event);
    assert_int_equal(it.event, event);
    assert_int_equal(it.index, index);
    if (arg == NULL)
        assert_null(it.arg);
    else
        assert_string_equal(it.arg, arg);
    if (value == NULL)
        assert_null(it.value);
    else
        assert_string_equal(it.value, value);
}

static void options_tells_positionals_help_and_flags_apart(void **state)
{
    options_parser p;
    (void)state;
    WALK(&p, "vector", "--json", "-h", "", "--help");
    next_is(&p, OPTIONS_POSITIONAL, -1, "vector", NULL);
    next_is(&p, OPTIONS_OPTION, OPT_JSON, "--json", NULL);
    next_is(&p, OPTIONS_HELP, -1, "-h", NULL);
    next_is(&p, OPTIONS_POSITIONAL, -1, "", NULL);
    next_is(&p, OPTIONS_HELP, -1, "--help", NULL);
    next_is(&p, OPTIONS_END, -1, NULL, NULL);
    next_is(&p, OPTIONS_END, -1, NULL, NULL);
}

static void options_value_is_taken_verbatim_even_when_it_looks_like_an_option(void **state)
{
    options_parser p;
    (void)state;
    WALK(&p, "--trace", "--help", "-o", "-x", "--output", "out");
    next_is(&p, OPTIONS_OPTION, OPT_TRACE, "--trace", "--help");
    next_is(&p, OPTIONS_OPTION, OPT_OUTPUT, "-o", "-x");
    next_is(&p, OPTIONS_OPTION, OPT_OUTPUT, "--output", "out");
    next_is(&p, OPTIONS_END, -1, NULL, NULL);
}

static void options_refused_value_names_the_option_and_is_read_again(void **state)
{
    options_parser p;
    (void)state;
    WALK(&p, "--runs", "--help", "--mode", "fast", "--runs", "2x");
    next_is(&p, OPTIONS_BAD_VALUE, OPT_RUNS, "--runs", "--help");
    next_is(&p, OPTIONS_HELP, -1, "--help", NULL);
    next_is(&p, OPTIONS_BAD_VALUE, OPT_MODE, "--mode", "fast");
    next_is(&p, OPTIONS_POSITIONAL, -1, "fast", NULL);
    next_is(&p, OPTIONS_BAD_VALUE, OPT_RUNS, "--runs", "2x");
    next_is(&p, OPTIONS_POSITIONAL, -1, "2x", NULL);
    next_is(&p, OPTIONS_END, -1, NULL, NULL);
}

static void options_count_is_parsed_whole_in_one_to_max(void **state)
{
    const char *refused[] = {"0", "-3", "2x", "", "1001", "99999999999999999999"};
    options_parser p;
    options_item it;
    (void)state;
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        options_init(&p, 3, (char *[]){"cmd", "--runs", (char *)refused[i]}, specs, OPTS);
        assert_int_equal(options_next(&p, &it), OPTIONS_BAD_VALUE);
        assert_int_equal(it.count, 0);
    }
    WALK(&p, "--runs", "1", "--runs", "1000");
    assert_int_equal(options_next(&p, &it), OPTIONS_OPTION);
    assert_int_equal(it.count, 1);
    assert_int_equal(options_next(&p, &it), OPTIONS_OPTION);
    assert_int_equal(it.count, RUNS_MAX);
}

static void options_choice_accepts_only_a_listed_word(void **state)
{
    options_parser p;
    (void)state;
    WALK(&p, "--mode", "program", "--mode", "kernel", "--mode", "Kernel");
    next_is(&p, OPTIONS_OPTION, OPT_MODE, "--mode", "program");
    next_is(&p, OPTIONS_OPTION, OPT_MODE, "--mode", "kernel");
    next_is(&p, OPTIONS_BAD_VALUE, OPT_MODE, "--mode", "Kernel");
}

static void options_unknown_and_missing_value_name_the_argument(void **state)
{
    options_parser p;
    (void)state;
    WALK(&p, "--bogus", "value", "-", "--trace");
    next_is(&p, OPTIONS_UNKNOWN, -1, "--bogus", NULL);
    next_is(&p, OPTIONS_POSITIONAL, -1, "value", NULL);
    next_is(&p, OPTIONS_UNKNOWN, -1, "-", NULL);
    next_is(&p, OPTIONS_NO_VALUE, OPT_TRACE, "--trace", NULL);
    next_is(&p, OPTIONS_END, -1, NULL, NULL);
}

/* The reason of each mistake names the argument, and the value. */
static void options_error_names_the_option_and_the_value(void **state)
{
    static const char *const want[] = {
        "unknown option '--nope'",
        "--runs '2x': not a count in 1..1000",
        "--mode 'fast': not one of kernel, program",
        "unexpected argument 'extra'",
        "--trace needs a value",
    };
    options_parser p;
    options_item it;
    char msg[128];
    (void)state;
    /* Each mistake in order. */
    WALK(&p, "--nope", "--runs", "2x", "--mode", "fast", "extra", "--trace");
    size_t k = 0;
    while (options_next(&p, &it) != OPTIONS_END) {
        if (it.event == OPTIONS_POSITIONAL && strcmp(it.arg, "extra") != 0)
            continue; /* "2x" and "fast", read again after their refusal */
        options_error(&it, specs, msg, sizeof(msg));
        assert_true(k < sizeof(want) / sizeof(want[0]));
        assert_string_equal(msg, want[k++]);
    }
    assert_int_equal(k, sizeof(want) / sizeof(want[0]));
    /* An accepted option is no mistake; a tiny buffer is truncated, not overrun. */
    WALK(&p, "--json", "--mode", "fast");
    options_next(&p, &it);
    options_error(&it, specs, msg, sizeof(msg));
    assert_string_equal(msg, "");
    options_next(&p, &it);
    options_error(&it, specs, msg, 8);
    assert_string_equal(msg, "--mode ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(options_tells_positionals_help_and_flags_apart),
        cmocka_unit_test(options_error_names_the_option_and_the_value),
        cmocka_unit_test(options_value_is_taken_verbatim_even_when_it_looks_like_an_option),
        cmocka_unit_test(options_refused_value_names_the_option_and_is_read_again),
        cmocka_unit_test(options_count_is_parsed_whole_in_one_to_max),
        cmocka_unit_test(options_choice_accepts_only_a_listed_word),
        cmocka_unit_test(options_unknown_and_missing_value_name_the_argument),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
