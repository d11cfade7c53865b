/*
 * elf_check — the one validator of the ELF binaries inside a callable
 * image, and the lookup of an exported dynamic symbol.
 *
 * The loader runs elf_shared_object_check on every binary before handing
 * it to dlopen (which maps the file's segments, so a table or segment
 * past the end of a truncated binary would fault inside dlopen), and the
 * public simpler_callable_verify (used by `simpler pack` and `simpler
 * inspect`) runs it together with elf_dynamic_symbol_find. Both read the
 * bytes only, through memcpy, so any alignment is fine, and never read
 * outside [bytes, bytes + size).
 *
 * What is checked is what the dynamic loader reads before it runs any of
 * the binary's code: the identification (magic, class, byte order,
 * version), the type (ET_DYN) and machine of this host, the program and
 * section header tables, every segment's file range, the loadable
 * segments' alignment, and the dynamic segment (inside a loadable
 * segment's file bytes, terminated, every address it names inside a
 * loadable segment). The code and data inside the segments are trusted:
 * loading runs the binary's constructors (loader.h).
 */
#ifndef SIMPLER_CALLABLE_ELF_CHECK_H
#define SIMPLER_CALLABLE_ELF_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* Room for any reason elf_shared_object_check writes. */
#define ELF_CHECK_REASON_BYTES 128

/* Returns 0 when `size` bytes at `bytes` are an ELF shared object this
 * host's dynamic loader may map; otherwise -1 and a one-line reason in
 * `why` (ELF_CHECK_REASON_BYTES, may be NULL), such as "truncated: the
 * program header table ends at 4096, past the binary's 3000 bytes".
 * Reads only; thread-safe. */
int elf_shared_object_check(const uint8_t *bytes, size_t size, char *why);

/* For a binary elf_shared_object_check accepted: 0 when its dynamic
 * symbol table holds a defined function (or indirect function) named
 * `name` with global or weak binding and default or protected
 * visibility, i.e. one dlsym would return; -1 otherwise (including a
 * binary whose dynamic segment names no symbol table, or one whose
 * tables lie outside the file). Reads only; thread-safe. */
int elf_dynamic_symbol_find(const uint8_t *bytes, size_t size, const char *name);

#endif
