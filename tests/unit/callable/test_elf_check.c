/* elf_shared_object_check and elf_dynamic_symbol_find on real fixture
 * binaries: a shared object of this host is accepted, every truncation
 * and each corrupted identification field, header table, segment and
 * dynamic entry is refused with a reason, and the symbol lookup finds
 * exactly the exported functions dlsym would. */
#define _GNU_SOURCE /* dl_iterate_phdr, in fixture_image.h */

#include "support.h"

#include <elf.h>
#include <string.h>

#include "callable/elf_check.h"
#include "fixture_image.h"

#if UINTPTR_MAX == UINT64_MAX
typedef Elf64_Ehdr ehdr;
typedef Elf64_Phdr phdr;
typedef Elf64_Shdr shdr;
typedef Elf64_Dyn dyn_entry;
#else
typedef Elf32_Ehdr ehdr;
typedef Elf32_Phdr phdr;
typedef Elf32_Shdr shdr;
typedef Elf32_Dyn dyn_entry;
#endif

static fixture_file kernel;

static int setup(void **state)
{
    (void)state;
    kernel = fixture_read(FIXTURE("callable_fixture_kernel1"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(kernel.bytes);
    return 0;
}

/* A private copy of the kernel fixture to corrupt. */
static uint8_t *copy(void)
{
    uint8_t *b = malloc(kernel.size);
    assert_non_null(b);
    memcpy(b, kernel.bytes, kernel.size);
    return b;
}

static ehdr *eh(uint8_t *b)
{
    return (ehdr *)(void *)b;
}

static phdr *ph(uint8_t *b, uint32_t i)
{
    return (phdr *)(void *)(b + eh(b)->e_phoff + i * sizeof(phdr));
}

static shdr *sh(uint8_t *b, uint32_t i)
{
    return (shdr *)(void *)(b + eh(b)->e_shoff + i * sizeof(shdr));
}

/* The index of the first program header of `type`. */
static uint32_t ph_find(uint8_t *b, uint32_t type)
{
    for (uint32_t i = 0; i < eh(b)->e_phnum; i++) {
        if (ph(b, i)->p_type == type)
            return i;
    }
    fail_msg("no segment of type %u", type);
    return 0;
}

/* Refused, with a reason containing `needle`. */
static void expect_refused(const uint8_t *b, size_t size, const char *needle)
{
    char why[ELF_CHECK_REASON_BYTES] = "";
    assert_int_equal(elf_shared_object_check(b, size, why), -1);
    if (strstr(why, needle) == NULL)
        fail_msg("reason '%s' does not mention '%s'", why, needle);
}

static void elf_check_accepts_shared_object_of_this_host(void **state)
{
    (void)state;
    char why[ELF_CHECK_REASON_BYTES] = "untouched";
    assert_int_equal(elf_shared_object_check(kernel.bytes, kernel.size, why), 0);
    assert_string_equal(why, "untouched");
    assert_int_equal(elf_shared_object_check(kernel.bytes, kernel.size, NULL), 0);
}

static void elf_check_refuses_every_truncation(void **state)
{
    (void)state;
    for (size_t n = 0; n < kernel.size; n++) {
        /* An exact-size copy, so a read past the end is an ASan error. */
        uint8_t *b = malloc(n ? n : 1);
        assert_non_null(b);
        memcpy(b, kernel.bytes, n);
        expect_refused(b, n, "truncated");
        free(b);
    }
    expect_refused(NULL, 0, "truncated");
}

static void elf_check_refuses_wrong_identification(void **state)
{
    (void)state;
    static const struct {
        size_t at;
        uint8_t value;
        const char *needle;
    } cases[] = {
        {0, 0x7e, "magic"},
        {3, 'G', "magic"},
        {EI_CLASS, ELFCLASSNONE, "class"},
        {EI_CLASS, UINTPTR_MAX == UINT64_MAX ? ELFCLASS32 : ELFCLASS64, "class"},
        {EI_DATA, ELFDATA2MSB, "byte order"},
        {EI_VERSION, 2, "version"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *b = copy();
        b[cases[i].at] = cases[i].value;
        expect_refused(b, kernel.size, cases[i].needle);
        free(b);
    }
}

static void elf_check_refuses_wrong_type_machine_and_sizes(void **state)
{
    (void)state;
    uint8_t *b = copy();
    eh(b)->e_type = ET_EXEC;
    expect_refused(b, kernel.size, "not a shared object");
    eh(b)->e_type = ET_REL;
    expect_refused(b, kernel.size, "not a shared object");
    memcpy(b, kernel.bytes, kernel.size);
    eh(b)->e_machine = eh(b)->e_machine == EM_AARCH64 ? EM_X86_64 : EM_AARCH64;
    expect_refused(b, kernel.size, "machine");
    memcpy(b, kernel.bytes, kernel.size);
    eh(b)->e_ehsize = 0;
    expect_refused(b, kernel.size, "header size");
    memcpy(b, kernel.bytes, kernel.size);
    eh(b)->e_phentsize = sizeof(phdr) + 8;
    expect_refused(b, kernel.size, "entry size");
    memcpy(b, kernel.bytes, kernel.size);
    eh(b)->e_shentsize = sizeof(shdr) - 8;
    expect_refused(b, kernel.size, "entry size");
    free(b);
}

static void elf_check_refuses_header_tables_outside_the_binary(void **state)
{
    (void)state;
    uint8_t *b = copy();
    eh(b)->e_phoff = kernel.size - sizeof(phdr);
    expect_refused(b, kernel.size, "program header table");
    eh(b)->e_phoff = UINT64_MAX - 8;
    expect_refused(b, kernel.size, "program header table");
    memcpy(b, kernel.bytes, kernel.size);
    eh(b)->e_phnum = 0;
    expect_refused(b, kernel.size, "program header count");
    eh(b)->e_phnum = PN_XNUM;
    expect_refused(b, kernel.size, "program header count");
    memcpy(b, kernel.bytes, kernel.size);
    eh(b)->e_shoff = kernel.size;
    expect_refused(b, kernel.size, "section header table");
    memcpy(b, kernel.bytes, kernel.size);
    eh(b)->e_shnum = (uint16_t)(eh(b)->e_shnum + 1000);
    expect_refused(b, kernel.size, "section header table");
    memcpy(b, kernel.bytes, kernel.size);
    eh(b)->e_shstrndx = eh(b)->e_shnum;
    expect_refused(b, kernel.size, "section name table");
    free(b);
}

static void elf_check_refuses_segments_and_sections_outside_the_binary(void **state)
{
    (void)state;
    uint8_t *b = copy();
    for (uint32_t i = 0; i < eh(b)->e_phnum; i++) {
        memcpy(b, kernel.bytes, kernel.size);
        ph(b, i)->p_filesz = kernel.size + 1;
        ph(b, i)->p_memsz = kernel.size + 1;
        expect_refused(b, kernel.size, "segment");
        memcpy(b, kernel.bytes, kernel.size);
        ph(b, i)->p_offset = UINT64_MAX - 1;
        expect_refused(b, kernel.size, "segment");
    }
    for (uint32_t i = 1; i < eh(b)->e_shnum; i++) {
        memcpy(b, kernel.bytes, kernel.size);
        if (sh(b, i)->sh_type == SHT_NOBITS)
            continue;
        sh(b, i)->sh_offset = kernel.size;
        sh(b, i)->sh_size = 1;
        expect_refused(b, kernel.size, "section");
    }
    free(b);
}

static void elf_check_refuses_inconsistent_loadable_segments(void **state)
{
    (void)state;
    uint8_t *b = copy();
    uint32_t load = ph_find(b, PT_LOAD);
    ph(b, load)->p_filesz = ph(b, load)->p_memsz + 1;
    expect_refused(b, kernel.size, "exceeds memory size");
    memcpy(b, kernel.bytes, kernel.size);
    ph(b, load)->p_align = 3;
    expect_refused(b, kernel.size, "alignment");
    memcpy(b, kernel.bytes, kernel.size);
    ph(b, load)->p_vaddr += 0x1000;
    ph(b, load)->p_memsz = UINT64_MAX - 0xfff;
    expect_refused(b, kernel.size, "wraps");
    memcpy(b, kernel.bytes, kernel.size);
    /* The second loadable segment moved below the first. */
    uint32_t second = load + 1;
    while (ph(b, second)->p_type != PT_LOAD)
        second++;
    ph(b, second)->p_vaddr = ph(b, load)->p_vaddr;
    ph(b, second)->p_offset = ph(b, load)->p_offset;
    expect_refused(b, kernel.size, "overlap");
    memcpy(b, kernel.bytes, kernel.size);
    for (uint32_t i = 0; i < eh(b)->e_phnum; i++) {
        if (ph(b, i)->p_type == PT_LOAD)
            ph(b, i)->p_type = PT_NULL;
    }
    expect_refused(b, kernel.size, "no loadable segment");
    free(b);
}

static void elf_check_refuses_bad_dynamic_segment(void **state)
{
    (void)state;
    uint8_t *b = copy();
    uint32_t dyn = ph_find(b, PT_DYNAMIC);
    ph(b, dyn)->p_type = PT_NULL;
    expect_refused(b, kernel.size, "no dynamic segment");
    memcpy(b, kernel.bytes, kernel.size);
    ph(b, dyn)->p_vaddr += 0x40000000;
    expect_refused(b, kernel.size, "outside the loadable segments");
    memcpy(b, kernel.bytes, kernel.size);
    ph(b, dyn)->p_filesz = sizeof(dyn_entry);
    expect_refused(b, kernel.size, "DT_NULL");
    memcpy(b, kernel.bytes, kernel.size);
    /* A DT_STRTAB naming an address no segment loads. */
    dyn_entry *d = (dyn_entry *)(void *)(b + ph(b, dyn)->p_offset);
    while (d->d_tag != DT_STRTAB)
        d++;
    d->d_un.d_ptr = 0x7fff0000;
    expect_refused(b, kernel.size, "outside the loadable segments");
    memcpy(b, kernel.bytes, kernel.size);
    d = (dyn_entry *)(void *)(b + ph(b, dyn)->p_offset);
    while (d->d_tag != DT_NEEDED && d->d_tag != DT_NULL)
        d++;
    if (d->d_tag == DT_NEEDED) {
        d->d_un.d_val = 1u << 30;
        expect_refused(b, kernel.size, "string table");
    }
    free(b);
}

static void elf_symbol_find_sees_exactly_exported_functions(void **state)
{
    (void)state;
    assert_int_equal(elf_dynamic_symbol_find(kernel.bytes, kernel.size, "kernel_entry"), 0);
    assert_int_equal(elf_dynamic_symbol_find(kernel.bytes, kernel.size, "kernel_entr"), -1);
    assert_int_equal(elf_dynamic_symbol_find(kernel.bytes, kernel.size, "kernel_entry_"), -1);
    assert_int_equal(elf_dynamic_symbol_find(kernel.bytes, kernel.size, ""), -1);
    assert_int_equal(elf_dynamic_symbol_find(kernel.bytes, kernel.size, NULL), -1);
    /* Undefined (imported) symbols are not exports. */
    fixture_file unresolved = fixture_read(FIXTURE("callable_fixture_unresolved"));
    assert_int_equal(elf_dynamic_symbol_find(unresolved.bytes, unresolved.size, "fixture_symbol_nobody_defines"), -1);
    free(unresolved.bytes);
    fixture_file orch = fixture_read(FIXTURE("callable_fixture_orch"));
    assert_int_equal(elf_dynamic_symbol_find(orch.bytes, orch.size, "fixture_orch"), 0);
    assert_int_equal(elf_dynamic_symbol_find(orch.bytes, orch.size, "kernel_entry"), -1);
    free(orch.bytes);
    fixture_file no_entry = fixture_read(FIXTURE("callable_fixture_no_entry"));
    assert_int_equal(elf_dynamic_symbol_find(no_entry.bytes, no_entry.size, "kernel_entry"), -1);
    free(no_entry.bytes);
    /* Neither a truncated binary nor bytes that are no ELF. */
    assert_int_equal(elf_dynamic_symbol_find(kernel.bytes, 100, "kernel_entry"), -1);
    static const uint8_t junk[256] = "not an ELF";
    assert_int_equal(elf_dynamic_symbol_find(junk, sizeof junk, "kernel_entry"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(elf_check_accepts_shared_object_of_this_host),
        cmocka_unit_test(elf_check_refuses_every_truncation),
        cmocka_unit_test(elf_check_refuses_wrong_identification),
        cmocka_unit_test(elf_check_refuses_wrong_type_machine_and_sizes),
        cmocka_unit_test(elf_check_refuses_header_tables_outside_the_binary),
        cmocka_unit_test(elf_check_refuses_segments_and_sections_outside_the_binary),
        cmocka_unit_test(elf_check_refuses_inconsistent_loadable_segments),
        cmocka_unit_test(elf_check_refuses_bad_dynamic_segment),
        cmocka_unit_test(elf_symbol_find_sees_exactly_exported_functions),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
