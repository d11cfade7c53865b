/* elf_check: the ELF shared object validator and the exported dynamic
 * symbol lookup (elf_check.h). Every read goes through `rd`, which
 * proves the range inside the binary first. */
#include "callable/elf_check.h"

#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if UINTPTR_MAX == UINT64_MAX
#define ELF_NATIVE_CLASS ELFCLASS64
typedef Elf64_Ehdr elf_ehdr;
typedef Elf64_Phdr elf_phdr;
typedef Elf64_Shdr elf_shdr;
typedef Elf64_Dyn elf_dyn;
typedef Elf64_Sym elf_sym;
#define ELF_ST_BIND ELF64_ST_BIND
#define ELF_ST_TYPE ELF64_ST_TYPE
#define ELF_ST_VISIBILITY ELF64_ST_VISIBILITY
#else
#define ELF_NATIVE_CLASS ELFCLASS32
typedef Elf32_Ehdr elf_ehdr;
typedef Elf32_Phdr elf_phdr;
typedef Elf32_Shdr elf_shdr;
typedef Elf32_Dyn elf_dyn;
typedef Elf32_Sym elf_sym;
#define ELF_ST_BIND ELF32_ST_BIND
#define ELF_ST_TYPE ELF32_ST_TYPE
#define ELF_ST_VISIBILITY ELF32_ST_VISIBILITY
#endif

#if defined(__x86_64__)
#define ELF_NATIVE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define ELF_NATIVE_MACHINE EM_AARCH64
#elif defined(__i386__)
#define ELF_NATIVE_MACHINE EM_386
#elif defined(__arm__)
#define ELF_NATIVE_MACHINE EM_ARM
#elif defined(__riscv)
#define ELF_NATIVE_MACHINE EM_RISCV
#elif defined(__powerpc64__)
#define ELF_NATIVE_MACHINE EM_PPC64
#elif defined(__s390x__)
#define ELF_NATIVE_MACHINE EM_S390
#elif defined(__loongarch__)
#define ELF_NATIVE_MACHINE EM_LOONGARCH
#else
#error "elf_check: name this machine's e_machine value"
#endif

/* Segments the dynamic loader reads at their load address: they must lie
 * inside the file bytes of one loadable segment. */
#define ELF_MAX_LOADS 64

typedef struct elf_file {
    const uint8_t *bytes;
    size_t size;
    elf_ehdr eh;
    uint32_t load_count;
    elf_phdr loads[ELF_MAX_LOADS];
} elf_file;

static int fail(char *why, const char *fmt, ...)
{
    if (why != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, ELF_CHECK_REASON_BYTES, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* [offset, offset + n) inside the binary, without overflow. */
static int in_file(const elf_file *f, uint64_t offset, uint64_t n)
{
    return offset <= f->size && n <= f->size - offset;
}

static int rd(const elf_file *f, uint64_t offset, void *out, size_t n)
{
    if (!in_file(f, offset, n))
        return -1;
    memcpy(out, f->bytes + offset, n);
    return 0;
}

static int ident_check(const elf_file *f, char *why)
{
    const elf_ehdr *e = &f->eh;
    if (memcmp(e->e_ident, ELFMAG, SELFMAG) != 0)
        return fail(why, "not an ELF file (no \\177ELF magic)");
    if (e->e_ident[EI_CLASS] != ELF_NATIVE_CLASS)
        return fail(why, "ELF class %u, this host loads class %u", e->e_ident[EI_CLASS], ELF_NATIVE_CLASS);
    if (e->e_ident[EI_DATA] != ELFDATA2LSB)
        return fail(why, "ELF byte order %u, this host is little-endian", e->e_ident[EI_DATA]);
    if (e->e_ident[EI_VERSION] != EV_CURRENT || e->e_version != EV_CURRENT)
        return fail(why, "ELF version %u, expected %u", (unsigned)e->e_version, EV_CURRENT);
    if (e->e_type != ET_DYN)
        return fail(why, "ELF type %u is not a shared object (ET_DYN)", e->e_type);
    if (e->e_machine != ELF_NATIVE_MACHINE)
        return fail(why, "ELF machine %u, this host is machine %u", e->e_machine, ELF_NATIVE_MACHINE);
    if (e->e_ehsize != sizeof(elf_ehdr))
        return fail(why, "ELF header size %u, expected %zu", e->e_ehsize, sizeof(elf_ehdr));
    return 0;
}

/* A table of `count` entries of `entsize` bytes at `offset`. */
static int table_check(const elf_file *f, const char *what, uint64_t offset, uint32_t count, uint32_t entsize,
                       size_t expect, char *why)
{
    if (count == 0)
        return 0;
    if (entsize != expect)
        return fail(why, "%s entry size %u, expected %zu", what, entsize, expect);
    uint64_t bytes = (uint64_t)count * entsize;
    if (!in_file(f, offset, bytes))
        return fail(why, "truncated: the %s (%llu bytes at %llu) ends past the binary's %zu bytes", what,
                    (unsigned long long)bytes, (unsigned long long)offset, f->size);
    return 0;
}

static int phdr_read(const elf_file *f, uint32_t i, elf_phdr *p)
{
    return rd(f, (uint64_t)f->eh.e_phoff + (uint64_t)i * sizeof *p, p, sizeof *p);
}

/* One loadable segment: sizes, alignment, ascending and disjoint. */
static int load_check(elf_file *f, const elf_phdr *p, uint32_t i, char *why)
{
    uint64_t end;
    if (p->p_filesz > p->p_memsz)
        return fail(why, "segment %u: file size %llu exceeds memory size %llu", i,
                    (unsigned long long)p->p_filesz, (unsigned long long)p->p_memsz);
    if (__builtin_add_overflow((uint64_t)p->p_vaddr, (uint64_t)p->p_memsz, &end))
        return fail(why, "segment %u: address range wraps", i);
    if (p->p_align > 1 &&
        ((p->p_align & (p->p_align - 1)) != 0 || (p->p_vaddr - p->p_offset) % p->p_align != 0))
        return fail(why, "segment %u: alignment %llu does not fit its offset and address", i,
                    (unsigned long long)p->p_align);
    if (f->load_count == ELF_MAX_LOADS)
        return fail(why, "more than %u loadable segments", ELF_MAX_LOADS);
    if (f->load_count > 0) {
        const elf_phdr *prev = &f->loads[f->load_count - 1];
        if (p->p_vaddr < (uint64_t)prev->p_vaddr + prev->p_memsz)
            return fail(why, "segment %u: loadable segments overlap or are out of address order", i);
    }
    f->loads[f->load_count++] = *p;
    return 0;
}

/* The file offset of [vaddr, vaddr + n) when it lies in the file bytes of
 * one loadable segment; -1 otherwise. */
static int64_t vaddr_to_offset(const elf_file *f, uint64_t vaddr, uint64_t n)
{
    for (uint32_t i = 0; i < f->load_count; i++) {
        const elf_phdr *l = &f->loads[i];
        if (vaddr >= l->p_vaddr && vaddr - l->p_vaddr <= l->p_filesz && n <= l->p_filesz - (vaddr - l->p_vaddr))
            return (int64_t)(l->p_offset + (vaddr - l->p_vaddr));
    }
    return -1;
}

/* [vaddr, vaddr + n) inside the memory image of one loadable segment. */
static int vaddr_mapped(const elf_file *f, uint64_t vaddr, uint64_t n)
{
    for (uint32_t i = 0; i < f->load_count; i++) {
        const elf_phdr *l = &f->loads[i];
        if (vaddr >= l->p_vaddr && vaddr - l->p_vaddr <= l->p_memsz && n <= l->p_memsz - (vaddr - l->p_vaddr))
            return 1;
    }
    return 0;
}

static int segments_check(elf_file *f, char *why)
{
    const elf_ehdr *e = &f->eh;
    if (e->e_phnum == 0 || e->e_phnum == PN_XNUM)
        return fail(why, "program header count %u: a shared object needs 1..%u", e->e_phnum, PN_XNUM - 1);
    int rc = table_check(f, "program header table", e->e_phoff, e->e_phnum, e->e_phentsize, sizeof(elf_phdr), why);
    if (rc != 0)
        return rc;
    for (uint32_t i = 0; i < e->e_phnum; i++) {
        elf_phdr p;
        (void)phdr_read(f, i, &p);
        if (!in_file(f, p.p_offset, p.p_filesz))
            return fail(why, "truncated: segment %u (%llu bytes at %llu) ends past the binary's %zu bytes", i,
                        (unsigned long long)p.p_filesz, (unsigned long long)p.p_offset, f->size);
        if (p.p_type == PT_LOAD && load_check(f, &p, i, why) != 0)
            return -1;
    }
    if (f->load_count == 0)
        return fail(why, "no loadable segment");
    /* Segments read at their load address must be loaded bytes. */
    for (uint32_t i = 0; i < e->e_phnum; i++) {
        elf_phdr p;
        (void)phdr_read(f, i, &p);
        if (p.p_type == PT_LOAD || p.p_type == PT_NULL || p.p_type == PT_GNU_STACK || p.p_type == PT_INTERP)
            continue;
        if (vaddr_to_offset(f, p.p_vaddr, p.p_filesz) < 0 || !vaddr_mapped(f, p.p_vaddr, p.p_memsz))
            return fail(why, "segment %u (type %#x) lies outside the loadable segments", i, (unsigned)p.p_type);
        if (p.p_type == PT_PHDR && (p.p_offset != e->e_phoff ||
                                    vaddr_to_offset(f, p.p_vaddr, p.p_filesz) != (int64_t)e->e_phoff))
            return fail(why, "segment %u (PT_PHDR) does not describe the program header table", i);
    }
    return 0;
}

static int sections_check(const elf_file *f, char *why)
{
    const elf_ehdr *e = &f->eh;
    if (e->e_shnum == 0)
        return e->e_shoff == 0 || in_file(f, e->e_shoff, 0) ? 0 : fail(why, "section header offset past the end");
    int rc = table_check(f, "section header table", e->e_shoff, e->e_shnum, e->e_shentsize, sizeof(elf_shdr), why);
    if (rc != 0)
        return rc;
    if (e->e_shstrndx != SHN_UNDEF && e->e_shstrndx >= e->e_shnum)
        return fail(why, "section name table index %u, only %u sections", e->e_shstrndx, e->e_shnum);
    for (uint32_t i = 0; i < e->e_shnum; i++) {
        elf_shdr s;
        (void)rd(f, (uint64_t)e->e_shoff + (uint64_t)i * sizeof s, &s, sizeof s);
        if (s.sh_type != SHT_NOBITS && s.sh_type != SHT_NULL && !in_file(f, s.sh_offset, s.sh_size))
            return fail(why, "truncated: section %u (%llu bytes at %llu) ends past the binary's %zu bytes", i,
                        (unsigned long long)s.sh_size, (unsigned long long)s.sh_offset, f->size);
    }
    return 0;
}

/* The dynamic segment's entries as the loader reads them. */
typedef struct elf_dynamic {
    uint64_t offset; /* file offset of the first entry */
    uint64_t count;  /* entries up to and including DT_NULL */
} elf_dynamic;

static int dynamic_find(const elf_file *f, elf_dynamic *d, char *why)
{
    for (uint32_t i = 0; i < f->eh.e_phnum; i++) {
        elf_phdr p;
        (void)phdr_read(f, i, &p);
        if (p.p_type != PT_DYNAMIC)
            continue;
        int64_t at = vaddr_to_offset(f, p.p_vaddr, p.p_filesz);
        uint64_t n = p.p_filesz / sizeof(elf_dyn);
        for (uint64_t k = 0; k < n; k++) {
            elf_dyn dyn;
            (void)rd(f, (uint64_t)at + k * sizeof dyn, &dyn, sizeof dyn);
            if (dyn.d_tag == DT_NULL) {
                d->offset = (uint64_t)at;
                d->count = k + 1;
                return 0;
            }
        }
        return fail(why, "the dynamic segment has no DT_NULL terminator inside its %llu bytes",
                    (unsigned long long)p.p_filesz);
    }
    return fail(why, "no dynamic segment (not a shared object)");
}

static void dyn_read(const elf_file *f, const elf_dynamic *d, uint64_t k, elf_dyn *out)
{
    (void)rd(f, d->offset + k * sizeof *out, out, sizeof *out);
}

/* The value of the first `tag` entry, or `absent`. */
static uint64_t dyn_value(const elf_file *f, const elf_dynamic *d, int64_t tag, uint64_t absent)
{
    for (uint64_t k = 0; k < d->count; k++) {
        elf_dyn dyn;
        dyn_read(f, d, k, &dyn);
        if (dyn.d_tag == tag)
            return dyn.d_un.d_val;
    }
    return absent;
}

/* Address-valued entries, with the tag of their size (0: unsized). */
static const int64_t dyn_address_tags[][2] = {
    {DT_HASH, 0},           {DT_GNU_HASH, 0},         {DT_STRTAB, DT_STRSZ},
    {DT_SYMTAB, 0},         {DT_RELA, DT_RELASZ},     {DT_REL, DT_RELSZ},
    {DT_JMPREL, DT_PLTRELSZ}, {DT_INIT, 0},           {DT_FINI, 0},
    {DT_INIT_ARRAY, DT_INIT_ARRAYSZ}, {DT_FINI_ARRAY, DT_FINI_ARRAYSZ},
    {DT_PREINIT_ARRAY, DT_PREINIT_ARRAYSZ}, {DT_VERSYM, 0}, {DT_VERDEF, 0},
    {DT_VERNEED, 0},        {DT_PLTGOT, 0},
};

/* Entries whose value is an offset into the string table. */
static int dyn_is_string(int64_t tag)
{
    return tag == DT_NEEDED || tag == DT_SONAME || tag == DT_RPATH || tag == DT_RUNPATH;
}

static int dynamic_check(const elf_file *f, const elf_dynamic *d, char *why)
{
    for (size_t t = 0; t < sizeof dyn_address_tags / sizeof dyn_address_tags[0]; t++) {
        uint64_t addr = dyn_value(f, d, dyn_address_tags[t][0], UINT64_MAX);
        if (addr == UINT64_MAX)
            continue;
        uint64_t bytes = dyn_address_tags[t][1] != 0 ? dyn_value(f, d, dyn_address_tags[t][1], 0) : 1;
        if (!vaddr_mapped(f, addr, bytes))
            return fail(why, "dynamic entry %lld names address %#llx outside the loadable segments",
                        (long long)dyn_address_tags[t][0], (unsigned long long)addr);
    }
    uint64_t strsz = dyn_value(f, d, DT_STRSZ, 0);
    int64_t strtab = vaddr_to_offset(f, dyn_value(f, d, DT_STRTAB, UINT64_MAX), strsz);
    for (uint64_t k = 0; k < d->count; k++) {
        elf_dyn dyn;
        dyn_read(f, d, k, &dyn);
        if (!dyn_is_string(dyn.d_tag))
            continue;
        if (strtab < 0 || dyn.d_un.d_val >= strsz ||
            memchr(f->bytes + strtab + dyn.d_un.d_val, '\0', strsz - dyn.d_un.d_val) == NULL)
            return fail(why, "dynamic entry %lld names a string outside the string table", (long long)dyn.d_tag);
    }
    return 0;
}

static int file_open(elf_file *f, const uint8_t *bytes, size_t size, char *why)
{
    memset(f, 0, sizeof *f);
    f->bytes = bytes;
    f->size = size;
    if (bytes == NULL || rd(f, 0, &f->eh, sizeof f->eh) != 0)
        return fail(why, "truncated: %zu bytes cannot hold an ELF header (%zu)", size, sizeof(elf_ehdr));
    return 0;
}

int elf_shared_object_check(const uint8_t *bytes, size_t size, char *why)
{
    elf_file f;
    elf_dynamic d;
    if (file_open(&f, bytes, size, why) != 0 || ident_check(&f, why) != 0 || segments_check(&f, why) != 0 ||
        sections_check(&f, why) != 0 || dynamic_find(&f, &d, why) != 0)
        return -1;
    return dynamic_check(&f, &d, why);
}

/* ---- exported symbol lookup ---- */

/* Symbols in the dynamic symbol table, from DT_HASH's chain count or by
 * walking DT_GNU_HASH to the end of its longest chain; 0 when neither
 * can be read. */
static uint64_t symbol_count_hash(const elf_file *f, uint64_t hash_vaddr)
{
    uint32_t w[2];
    int64_t at = vaddr_to_offset(f, hash_vaddr, sizeof w);
    return at >= 0 && rd(f, (uint64_t)at, w, sizeof w) == 0 ? w[1] : 0;
}

static uint64_t symbol_count_gnu_hash(const elf_file *f, uint64_t gnu_vaddr)
{
    uint32_t w[4]; /* nbuckets, symoffset, bloom words, bloom shift */
    int64_t at = vaddr_to_offset(f, gnu_vaddr, sizeof w);
    if (at < 0 || rd(f, (uint64_t)at, w, sizeof w) != 0)
        return 0;
    uint64_t buckets = (uint64_t)at + sizeof w + (uint64_t)w[2] * sizeof(uintptr_t);
    uint64_t chains = buckets + (uint64_t)w[0] * 4;
    uint32_t last = 0;
    for (uint32_t b = 0; b < w[0]; b++) {
        uint32_t v;
        if (rd(f, buckets + (uint64_t)b * 4, &v, 4) != 0)
            return 0;
        last = v > last ? v : last;
    }
    if (last < w[1])
        return w[1];
    for (uint64_t i = last;; i++) {
        uint32_t c;
        if (rd(f, chains + (i - w[1]) * 4, &c, 4) != 0)
            return 0;
        if (c & 1)
            return i + 1;
    }
}

static int symbol_exported(const elf_sym *s)
{
    unsigned bind = ELF_ST_BIND(s->st_info), type = ELF_ST_TYPE(s->st_info), vis = ELF_ST_VISIBILITY(s->st_other);
    return s->st_shndx != SHN_UNDEF && (bind == STB_GLOBAL || bind == STB_WEAK) &&
           (type == STT_FUNC || type == STT_GNU_IFUNC) && (vis == STV_DEFAULT || vis == STV_PROTECTED);
}

int elf_dynamic_symbol_find(const uint8_t *bytes, size_t size, const char *name)
{
    elf_file f;
    elf_dynamic d;
    if (name == NULL || file_open(&f, bytes, size, NULL) != 0 || segments_check(&f, NULL) != 0 ||
        dynamic_find(&f, &d, NULL) != 0)
        return -1;
    uint64_t count = symbol_count_hash(&f, dyn_value(&f, &d, DT_HASH, UINT64_MAX));
    if (count == 0)
        count = symbol_count_gnu_hash(&f, dyn_value(&f, &d, DT_GNU_HASH, UINT64_MAX));
    uint64_t strsz = dyn_value(&f, &d, DT_STRSZ, 0);
    int64_t strtab = vaddr_to_offset(&f, dyn_value(&f, &d, DT_STRTAB, UINT64_MAX), strsz);
    int64_t symtab = vaddr_to_offset(&f, dyn_value(&f, &d, DT_SYMTAB, UINT64_MAX), 0);
    if (strtab < 0 || symtab < 0)
        return -1;
    size_t len = strlen(name);
    for (uint64_t i = 1; i < count; i++) {
        elf_sym s;
        if (rd(&f, (uint64_t)symtab + i * sizeof s, &s, sizeof s) != 0)
            return -1;
        if (s.st_name < strsz && len < strsz - s.st_name &&
            memcmp(f.bytes + strtab + s.st_name, name, len + 1) == 0 && symbol_exported(&s))
            return 0;
    }
    return -1;
}
