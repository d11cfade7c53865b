/* Iteration counts for the stress suites. Each suite states its counts
 * for a normal build; sanitizer builds run an eighth of them (at least
 * one), so every program stays fast under ASan and TSan. Outcomes never
 * depend on the count: every iteration is checked exactly. */
#ifndef SIMPLER_TESTS_STRESS_SCALE_H
#define SIMPLER_TESTS_STRESS_SCALE_H

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define STRESS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define STRESS_SANITIZED 1
#endif
#endif

#ifdef STRESS_SANITIZED
#define STRESS_COUNT(n) ((n) / 8 > 0 ? (n) / 8 : 1)
#else
#define STRESS_COUNT(n) (n)
#endif

#endif
