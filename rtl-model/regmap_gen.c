/*
 * regmap_gen.c - generates the register-map outputs from abb_regs.def.
 *
 * usage: regmap_gen DEF OUT_pkg.sv OUT.h OUT.md OUT_reset.txt
 * The one source of truth is abb_regs.def (format in its header): registers,
 * their bit fields (shift, width, mask) and access behaviours, each with an
 * evidence tag (board:FILE or model). Every output is written in full,
 * deterministically, so `make regmap-check` can regenerate into a scratch
 * directory and diff. The generator refuses overlapping fields, reset
 * values with bits outside the fields, registers without fields and
 * duplicate generated names.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_REG, K_BLOCK, K_CHREG, K_WORD, K_FIELD, K_BEH, K_CONST };

struct entry {
	enum kind kind;
	char name[48];
	char owner[48];      /* field, beh: the reg, chreg or word it belongs to */
	char access[8];      /* reg, chreg */
	unsigned long value; /* reg, chreg, block: offset; field: mask; const: value */
	unsigned long reset; /* reg, chreg */
	unsigned shift, width; /* field */
	int view;            /* field: "!" (may overlap the other fields) */
	char evid[128];      /* "model" or "board:FILE[+FILE...]" */
	char desc[512];
	int line;
};

#define MAX_ENTRIES 512
static struct entry ents[MAX_ENTRIES];
static int nents;
static const char *def_path;

static int fail(int line, const char *what, const char *name)
{
	fprintf(stderr, "%s:%d: %s%s%s\n", def_path, line, what, name ? ": " : "", name ? name : "");
	return -1;
}

static int parse_num(const char *s, unsigned long *v)
{
	char *end;
	errno = 0;
	*v = strtoul(s, &end, 0);
	return (errno || *end || !*s) ? -1 : 0;
}

/* Splits off the next blank-separated word of *p into out. */
static int next_word(char **p, char *out, size_t n)
{
	char *s = *p;
	size_t i = 0;
	while (*s && isspace((unsigned char)*s))
		s++;
	if (!*s)
		return -1;
	while (*s && !isspace((unsigned char)*s)) {
		if (i + 1 >= n)
			return -1;
		out[i++] = *s++;
	}
	out[i] = 0;
	*p = s;
	return 0;
}

/* BITS: "[msb:lsb]" or "[bit]", optionally followed by "!". */
static int parse_bits(const char *s, struct entry *e)
{
	unsigned msb, lsb;
	int n = 0;
	if (sscanf(s, "[%u:%u]%n", &msb, &lsb, &n) == 2 && n > 0) {
	} else if (sscanf(s, "[%u]%n", &msb, &n) == 1 && n > 0) {
		lsb = msb;
	} else {
		return -1;
	}
	s += n;
	e->view = *s == '!';
	if (e->view)
		s++;
	if (*s || msb > 31 || lsb > msb)
		return -1;
	e->shift = lsb;
	e->width = msb - lsb + 1;
	e->value = (e->width == 32 ? 0xfffffffful : ((1ul << e->width) - 1)) << lsb;
	return 0;
}

/* EVIDENCE: "model" or "board:FILE[+FILE...]" (file names: letters,
 * digits, '_', '.', '-'). */
static int check_evid(const char *s)
{
	if (!strcmp(s, "model"))
		return 0;
	if (strncmp(s, "board:", 6))
		return -1;
	s += 6;
	for (;;) {
		size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-");
		if (n == 0)
			return -1;
		s += n;
		if (!*s)
			return 0;
		if (*s != '+')
			return -1;
		s++;
	}
}

static int is_board(const struct entry *e)
{
	return e->evid[0] == 'b';
}

static const struct entry *find_owner(const char *name, int before)
{
	for (int i = 0; i < before; i++)
		if ((ents[i].kind == K_REG || ents[i].kind == K_CHREG || ents[i].kind == K_WORD) &&
		    !strcmp(ents[i].name, name))
			return &ents[i];
	return NULL;
}

static int parse_line(char *p, struct entry *e, int line)
{
	char kw[16], a[48], b[48];
	if (next_word(&p, kw, sizeof kw) || kw[0] == '#')
		return 1;
	memset(e, 0, sizeof *e);
	e->line = line;
	if (!strcmp(kw, "reg") || !strcmp(kw, "chreg")) {
		e->kind = kw[0] == 'r' ? K_REG : K_CHREG;
		if (next_word(&p, e->name, sizeof e->name) || next_word(&p, a, sizeof a) ||
		    next_word(&p, e->access, sizeof e->access) || next_word(&p, b, sizeof b) ||
		    next_word(&p, e->evid, sizeof e->evid) || parse_num(a, &e->value) ||
		    parse_num(b, &e->reset))
			return fail(line, "expected: reg|chreg NAME OFFSET ACCESS RESET EVIDENCE description", NULL);
		if (strcmp(e->access, "ro") && strcmp(e->access, "rw") && strcmp(e->access, "w1c") &&
		    strcmp(e->access, "wo") && strcmp(e->access, "rov"))
			return fail(line, "ACCESS must be ro, rov, rw, w1c or wo", e->access);
		if (e->value & 3)
			return fail(line, "register offset must be a multiple of 4", e->name);
	} else if (!strcmp(kw, "block")) {
		e->kind = K_BLOCK;
		if (next_word(&p, e->name, sizeof e->name) || next_word(&p, a, sizeof a) ||
		    next_word(&p, e->evid, sizeof e->evid) || parse_num(a, &e->value))
			return fail(line, "expected: block NAME OFFSET EVIDENCE description", NULL);
	} else if (!strcmp(kw, "word")) {
		e->kind = K_WORD;
		if (next_word(&p, e->name, sizeof e->name) || next_word(&p, e->evid, sizeof e->evid))
			return fail(line, "expected: word NAME EVIDENCE description", NULL);
	} else if (!strcmp(kw, "field")) {
		e->kind = K_FIELD;
		if (next_word(&p, e->owner, sizeof e->owner) || next_word(&p, e->name, sizeof e->name) ||
		    next_word(&p, a, sizeof a) || next_word(&p, e->evid, sizeof e->evid))
			return fail(line, "expected: field REG NAME BITS EVIDENCE description", NULL);
		if (parse_bits(a, e))
			return fail(line, "BITS must be [msb:lsb] or [bit] inside [31:0], optionally with '!'", a);
	} else if (!strcmp(kw, "beh")) {
		e->kind = K_BEH;
		if (next_word(&p, e->owner, sizeof e->owner) || next_word(&p, e->name, sizeof e->name) ||
		    next_word(&p, e->evid, sizeof e->evid))
			return fail(line, "expected: beh REG NAME EVIDENCE description", NULL);
	} else if (!strcmp(kw, "const")) {
		e->kind = K_CONST;
		if (next_word(&p, e->name, sizeof e->name) || next_word(&p, a, sizeof a) ||
		    next_word(&p, e->evid, sizeof e->evid) || parse_num(a, &e->value))
			return fail(line, "expected: const NAME VALUE EVIDENCE description", NULL);
	} else {
		return fail(line, "unknown keyword (reg, block, chreg, word, field, beh, const)", kw);
	}
	if (check_evid(e->evid))
		return fail(line, "EVIDENCE must be model or board:FILE[+FILE...]", e->evid);
	while (*p && isspace((unsigned char)*p))
		p++;
	if (!*p)
		return fail(line, "description missing", e->name);
	snprintf(e->desc, sizeof e->desc, "%s", p);
	return 0;
}

/* Cross checks: owners exist, every register has fields, fields of a
 * register do not overlap (unless marked '!'), the reset value lies
 * inside the fields. */
static int check(void)
{
	for (int i = 0; i < nents; i++) {
		const struct entry *e = &ents[i];
		if (e->kind == K_FIELD || e->kind == K_BEH) {
			if (!find_owner(e->owner, i))
				return fail(e->line, "unknown register or word (declare it first)", e->owner);
		}
		if (e->kind != K_REG && e->kind != K_CHREG && e->kind != K_WORD)
			continue;
		unsigned long used = 0;
		int nf = 0;
		for (int j = 0; j < nents; j++) {
			const struct entry *f = &ents[j];
			if (f->kind != K_FIELD || strcmp(f->owner, e->name))
				continue;
			nf++;
			if (!f->view && (used & f->value) && e->kind != K_WORD)
				return fail(f->line, "field overlaps another field (mark a second view with '!')",
					    f->name);
			used |= f->value;
		}
		if (!nf)
			return fail(e->line, "register or word without fields", e->name);
		if (e->reset & ~used)
			return fail(e->line, "reset value has bits outside the fields", e->name);
	}
	return 0;
}

static int parse(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[1024];
	int line = 0;
	def_path = path;
	if (!f) {
		fprintf(stderr, "regmap_gen: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(buf, sizeof buf, f)) {
		int rc;
		line++;
		buf[strcspn(buf, "\n")] = 0;
		if (nents == MAX_ENTRIES) {
			fclose(f);
			return fail(line, "too many entries", NULL);
		}
		rc = parse_line(buf, &ents[nents], line);
		if (rc < 0) {
			fclose(f);
			return -1;
		}
		if (rc == 0)
			nents++;
	}
	fclose(f);
	return check();
}

/* The OR of a register's field masks (its defined bits). */
static unsigned long fields_of(const char *reg)
{
	unsigned long m = 0;
	for (int i = 0; i < nents; i++)
		if (ents[i].kind == K_FIELD && !strcmp(ents[i].owner, reg))
			m |= ents[i].value;
	return m;
}

/* Bits a value needs: its highest set bit + 1 (0 for 0). */
static unsigned bits_for(unsigned long v)
{
	unsigned n = 0;
	while (v >> n)
		n++;
	return n;
}

/* A register's width: every field lies in bits [width-1:0] (the RTL sizes
 * a register that stores only its fields by it). */
static unsigned width_of(const char *reg)
{
	return bits_for(fields_of(reg));
}

/* Address bits of an offset inside a channel block (the largest chreg
 * offset decides). */
static unsigned ch_addr_width(void)
{
	unsigned long max = 0;
	for (int i = 0; i < nents; i++)
		if (ents[i].kind == K_CHREG && ents[i].value > max)
			max = ents[i].value;
	return bits_for(max);
}

static const char banner[] = "generated by rtl-model/regmap_gen.c from rtl-model/abb_regs.def; do not edit";

static void bits_str(const struct entry *e, char *out, size_t n)
{
	if (e->width == 1)
		snprintf(out, n, "[%u]", e->shift);
	else
		snprintf(out, n, "[%u:%u]", e->shift + e->width - 1, e->shift);
}

static void gen_sv(FILE *f)
{
	char bits[16];
	fprintf(f, "// abb_reg_pkg.sv - ABB register map (%s)\n", banner);
	fprintf(f, "//\n// Evidence (board:FILE = known from the original 2008 stack, model = defined\n"
		   "// here) in the comments; REGISTERS.md has the tables. Registers: REG_x the\n"
		   "// BAR0 offset, REG_x_FIELDS the defined bits, REG_x_WIDTH the bits [WIDTH-1:0]\n"
		   "// that hold every field; CH_x the offset inside a channel block\n"
		   "// (CH_ADDR_WIDTH bits). Fields: NAME is the mask, NAME_SHIFT the lowest bit,\n"
		   "// NAME_WIDTH the number of bits.\n\n");
	fprintf(f, "package abb_reg_pkg;\n\n");
	for (int i = 0, ch_first = 1; i < nents; i++) {
		const struct entry *e = &ents[i];
		switch (e->kind) {
		case K_REG:
			fprintf(f, "  // %s (%s, %s)\n", e->desc, e->access, e->evid);
			fprintf(f, "  localparam logic [15:0] REG_%s = 16'h%04lx;\n", e->name, e->value);
			fprintf(f, "  localparam logic [31:0] REG_%s_RESET = 32'h%08lx;\n", e->name, e->reset);
			fprintf(f, "  localparam logic [31:0] REG_%s_FIELDS = 32'h%08lx;\n", e->name,
				fields_of(e->name));
			fprintf(f, "  localparam int REG_%s_WIDTH = %u;\n", e->name, width_of(e->name));
			break;
		case K_BLOCK:
			fprintf(f, "  // %s (%s)\n", e->desc, e->evid);
			fprintf(f, "  localparam logic [15:0] BLK_%s = 16'h%04lx;\n", e->name, e->value);
			break;
		case K_CHREG:
			if (ch_first) {
				fprintf(f, "  // Address bits of an offset inside a channel block\n");
				fprintf(f, "  localparam int CH_ADDR_WIDTH = %u;\n", ch_addr_width());
				ch_first = 0;
			}
			fprintf(f, "  // %s (%s, %s)\n", e->desc, e->access, e->evid);
			fprintf(f, "  localparam logic [CH_ADDR_WIDTH-1:0] CH_%s = %u'h%02lx;\n", e->name,
				ch_addr_width(), e->value);
			break;
		case K_WORD:
			fprintf(f, "  // data word %s: %s (%s)\n", e->name, e->desc, e->evid);
			break;
		case K_FIELD:
			bits_str(e, bits, sizeof bits);
			fprintf(f, "  // %s.%s %s: %s (%s)\n", e->owner, e->name, bits, e->desc, e->evid);
			fprintf(f, "  localparam logic [31:0] %s_%s = 32'h%08lx;\n", e->owner, e->name, e->value);
			fprintf(f, "  localparam int %s_%s_SHIFT = %u;\n", e->owner, e->name, e->shift);
			fprintf(f, "  localparam int %s_%s_WIDTH = %u;\n", e->owner, e->name, e->width);
			break;
		case K_BEH:
			fprintf(f, "  // %s behaviour %s (%s): %s\n", e->owner, e->name, e->evid, e->desc);
			break;
		case K_CONST:
			fprintf(f, "  // %s (%s)\n", e->desc, e->evid);
			fprintf(f, "  localparam logic [31:0] %s = 32'h%08lx;\n", e->name, e->value);
			break;
		}
	}
	fprintf(f, "\nendpackage\n");
}

static void gen_h(FILE *f)
{
	char bits[16];
	fprintf(f, "/* abb_regs.h - ABB register map (%s) */\n", banner);
	fprintf(f, "#ifndef ABB_ABB_REGS_H\n#define ABB_ABB_REGS_H\n\n");
	fprintf(f, "/*\n * Names: ABB_REG_x (BAR0 offset), ABB_REG_x_RESET, ABB_REG_x_FIELDS (defined\n"
		   " * bits), ABB_REG_x_WIDTH (the fields lie in bits [WIDTH-1:0]), ABB_BLK_x\n"
		   " * (channel block base), ABB_CH_x (offset inside a block, ABB_CH_ADDR_WIDTH\n"
		   " * bits), ABB_r_f (field mask), ABB_r_f_SHIFT, ABB_r_f_WIDTH.\n"
		   " * Evidence: ..._BOARD is 1 when the fact is known from the original 2008\n"
		   " * stack (board), 0 when this project defines it (model; host code must\n"
		   " * work without it). ABB_BEH_r_b_BOARD: the same for an access behaviour.\n"
		   " */\n");
	fprintf(f, "#define ABB_FIELD_GET(F, v) (((v) & ABB_##F) >> ABB_##F##_SHIFT)\n");
	fprintf(f, "#define ABB_FIELD_PUT(F, x) (((unsigned)(x) << ABB_##F##_SHIFT) & ABB_##F)\n\n");
	for (int i = 0, ch_first = 1; i < nents; i++) {
		const struct entry *e = &ents[i];
		switch (e->kind) {
		case K_REG:
			fprintf(f, "/* %s (%s, %s) */\n", e->desc, e->access, e->evid);
			fprintf(f, "#define ABB_REG_%s 0x%04lxu\n", e->name, e->value);
			fprintf(f, "#define ABB_REG_%s_RESET 0x%08lxu\n", e->name, e->reset);
			fprintf(f, "#define ABB_REG_%s_FIELDS 0x%08lxu\n", e->name, fields_of(e->name));
			fprintf(f, "#define ABB_REG_%s_WIDTH %uu\n", e->name, width_of(e->name));
			fprintf(f, "#define ABB_REG_%s_BOARD %d\n", e->name, is_board(e));
			break;
		case K_BLOCK:
			fprintf(f, "/* %s (%s) */\n#define ABB_BLK_%s 0x%04lxu\n", e->desc, e->evid, e->name,
				e->value);
			fprintf(f, "#define ABB_BLK_%s_BOARD %d\n", e->name, is_board(e));
			break;
		case K_CHREG:
			if (ch_first) {
				fprintf(f, "/* Address bits of an offset inside a channel block */\n");
				fprintf(f, "#define ABB_CH_ADDR_WIDTH %uu\n", ch_addr_width());
				ch_first = 0;
			}
			fprintf(f, "/* %s (%s, %s) */\n#define ABB_CH_%s 0x%lxu\n", e->desc, e->access,
				e->evid, e->name, e->value);
			fprintf(f, "#define ABB_CH_%s_BOARD %d\n", e->name, is_board(e));
			break;
		case K_WORD:
			fprintf(f, "/* data word %s: %s (%s) */\n", e->name, e->desc, e->evid);
			break;
		case K_FIELD:
			bits_str(e, bits, sizeof bits);
			fprintf(f, "/* %s.%s %s: %s (%s) */\n", e->owner, e->name, bits, e->desc, e->evid);
			fprintf(f, "#define ABB_%s_%s 0x%08lxu\n", e->owner, e->name, e->value);
			fprintf(f, "#define ABB_%s_%s_SHIFT %uu\n", e->owner, e->name, e->shift);
			fprintf(f, "#define ABB_%s_%s_WIDTH %uu\n", e->owner, e->name, e->width);
			fprintf(f, "#define ABB_%s_%s_BOARD %d\n", e->owner, e->name, is_board(e));
			break;
		case K_BEH:
			fprintf(f, "/* %s behaviour %s (%s): %s */\n", e->owner, e->name, e->evid, e->desc);
			fprintf(f, "#define ABB_BEH_%s_%s_BOARD %d\n", e->owner, e->name, is_board(e));
			break;
		case K_CONST:
			fprintf(f, "/* %s (%s) */\n#define ABB_%s 0x%lxu\n", e->desc, e->evid, e->name, e->value);
			fprintf(f, "#define ABB_%s_BOARD %d\n", e->name, is_board(e));
			break;
		}
	}
	fprintf(f, "\n#endif\n");
}

/* Evidence as a table cell: board (FILE, FILE) or **model**. */
static void md_evid(FILE *f, const struct entry *e)
{
	if (!is_board(e)) {
		fputs("**model**", f);
		return;
	}
	fputs("board (", f);
	for (const char *s = e->evid + 6; *s; s++) {
		if (*s == '+')
			fputs(", ", f);
		else
			fputc(*s, f);
	}
	fputc(')', f);
}

/* Text in a table cell: '|' escaped. */
static void md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

/* The access column; "(model)" when the access behaviour itself (a beh
 * line named like the access, e.g. W1C) is model-defined. */
static void md_access(FILE *f, const struct entry *r)
{
	char up[8];
	size_t i;
	for (i = 0; r->access[i] && i + 1 < sizeof up; i++)
		up[i] = (char)toupper((unsigned char)r->access[i]);
	up[i] = 0;
	fputs(r->access, f);
	for (int j = 0; j < nents; j++)
		if (ents[j].kind == K_BEH && !strcmp(ents[j].owner, r->name) &&
		    !strcmp(ents[j].name, up) && !is_board(&ents[j]))
			fputs(" **(model)**", f);
}

static void gen_md(FILE *f)
{
	char bits[16];
	fprintf(f, "# ABB register map\n\n<!-- %s -->\n\n", banner);
	fprintf(f, "BAR0 byte offsets, 32-bit registers. Evidence: **board (FILE)** = known from the "
		   "original 2008 host stack (mprace, pciDriver, DABC's abb plugin; FILE names the "
		   "source that shows it); **model** = defined by this project where that evidence is "
		   "silent: host code must work on a board without it, and the simulator's strict mode "
		   "(`strict=1`) disables the model-defined side effects. A register's evidence covers "
		   "its existence and offset; its fields and access behaviours carry their own.\n\n");
	fprintf(f, "## Registers\n\n| offset | name | access | reset | evidence | description |\n"
		   "|---|---|---|---|---|---|\n");
	for (int i = 0; i < nents; i++) {
		const struct entry *e = &ents[i];
		if (e->kind == K_REG) {
			fprintf(f, "| 0x%04lx | %s | ", e->value, e->name);
			md_access(f, e);
			fprintf(f, " | 0x%08lx | ", e->reset);
			md_evid(f, e);
			fputs(" | ", f);
			md_text(f, e->desc);
			fputs(" |\n", f);
		} else if (e->kind == K_BLOCK) {
			fprintf(f, "| 0x%04lx | %s block | (below) | 0 | ", e->value, e->name);
			md_evid(f, e);
			fputs(" | ", f);
			md_text(f, e->desc);
			fputs(" |\n", f);
		}
	}
	fprintf(f, "\n## Channel block registers\n\nOffsets inside a block (add the block base); "
		   "PAH .. CTRL are also the eight words of a descriptor in host memory.\n\n"
		   "| offset | name | access | reset | evidence | description |\n|---|---|---|---|---|---|\n");
	for (int i = 0; i < nents; i++) {
		const struct entry *e = &ents[i];
		if (e->kind != K_CHREG)
			continue;
		fprintf(f, "| 0x%02lx | %s | ", e->value, e->name);
		md_access(f, e);
		fprintf(f, " | 0x%08lx | ", e->reset);
		md_evid(f, e);
		fputs(" | ", f);
		md_text(f, e->desc);
		fputs(" |\n", f);
	}
	fprintf(f, "\n## Access behaviours\n\nWhat a register does beyond plain read and write.\n\n"
		   "| register | behaviour | evidence | description |\n|---|---|---|---|\n");
	for (int i = 0; i < nents; i++) {
		const struct entry *e = &ents[i];
		if (e->kind != K_BEH)
			continue;
		fprintf(f, "| %s | %s | ", e->owner, e->name);
		md_evid(f, e);
		fputs(" | ", f);
		md_text(f, e->desc);
		fputs(" |\n", f);
	}
	fprintf(f, "\n## Bit fields\n\nA field marked (view) is a second view of bits another "
		   "field of the same register also covers.\n\n"
		   "| register | field | bits | shift | width | mask | evidence | description |\n"
		   "|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < nents; i++) {
		const struct entry *e = &ents[i];
		if (e->kind != K_FIELD)
			continue;
		bits_str(e, bits, sizeof bits);
		fprintf(f, "| %s | %s%s | %s | %u | %u | 0x%08lx | ", e->owner, e->name,
			e->view ? " (view)" : "", bits, e->shift, e->width, e->value);
		md_evid(f, e);
		fputs(" | ", f);
		md_text(f, e->desc);
		fputs(" |\n", f);
	}
	fprintf(f, "\n## Data words\n\nWords that are no register; their fields are in the table "
		   "above.\n\n| name | evidence | description |\n|---|---|---|\n");
	for (int i = 0; i < nents; i++) {
		const struct entry *e = &ents[i];
		if (e->kind != K_WORD)
			continue;
		fprintf(f, "| %s | ", e->name);
		md_evid(f, e);
		fputs(" | ", f);
		md_text(f, e->desc);
		fputs(" |\n", f);
	}
	fprintf(f, "\n## Constants\n\n| name | value | evidence | description |\n|---|---|---|---|\n");
	for (int i = 0; i < nents; i++) {
		const struct entry *e = &ents[i];
		if (e->kind != K_CONST)
			continue;
		fprintf(f, "| %s | 0x%lx | ", e->name, e->value);
		md_evid(f, e);
		fputs(" | ", f);
		md_text(f, e->desc);
		fputs(" |\n", f);
	}
}

/* Register reset values as a golden vector: "OFFSET NAME ACCESS RESET". */
static void gen_reset(FILE *f)
{
	fprintf(f, "# ABB register reset values (%s)\n# offset name access reset\n", banner);
	for (int i = 0; i < nents; i++) {
		const struct entry *e = &ents[i];
		if (e->kind == K_REG)
			fprintf(f, "0x%04lx %s %s 0x%08lx\n", e->value, e->name, e->access, e->reset);
	}
}

/* Every "#define NAME" of the C header is unique (the SV names are the
 * same without the ABB_ prefix, so this covers the package too). */
static int check_names(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = 0, n = 0;
	char (*names)[96];
	if (!f)
		return -1;
	gen_h(f);
	fclose(f);
	names = calloc(4 * MAX_ENTRIES + 8, sizeof *names);
	if (!names) {
		free(buf);
		return -1;
	}
	for (char *s = buf; s && *s && !rc; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
		char name[96];
		if (sscanf(s, "#define %95[A-Za-z0-9_]", name) != 1)
			continue;
		for (int i = 0; i < n; i++)
			if (!strcmp(names[i], name)) {
				fprintf(stderr, "%s: generated name %s defined twice\n", def_path, name);
				rc = -1;
			}
		if (n < 4 * MAX_ENTRIES + 8)
			snprintf(names[n++], sizeof names[0], "%s", name);
	}
	free(names);
	free(buf);
	return rc;
}

static int emit(const char *path, void (*fn)(FILE *))
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "regmap_gen: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	fn(f);
	if (fclose(f)) {
		fprintf(stderr, "regmap_gen: error writing %s\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: %s abb_regs.def OUT_pkg.sv OUT.h OUT.md OUT_reset.txt\n", argv[0]);
		return 2;
	}
	if (parse(argv[1]) || check_names())
		return 1;
	if (emit(argv[2], gen_sv) || emit(argv[3], gen_h) || emit(argv[4], gen_md) ||
	    emit(argv[5], gen_reset))
		return 1;
	return 0;
}
