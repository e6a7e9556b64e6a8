/* SPDX-License-Identifier: MIT */
/*
 * acpi_load.c - reads ACPI tables from acpixtract folders and acpidump text.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "tools/sidecore/acpi_load.h"

/* acpidump prints 16 bytes per line: "    0000: 41 50 49 43 ...  APIC...." */
#define DUMP_BYTES_PER_LINE 16

/*
 * Neither the RSDP nor the FACS carries the standard header and checksum
 * (ACPI 6.5 sections 5.2.5.3 and 5.2.10); acpidump and acpixtract emit them
 * anyway. They are not description tables, so they are passed over quietly.
 */
static int acpi_load_is_headerless(const uint8_t *data, size_t size)
{
	return (size >= 8 && memcmp(data, "RSD PTR ", 8) == 0) ||
	       (size >= 4 && memcmp(data, "FACS", 4) == 0);
}

/* Hands image (malloc'd, size bytes) to the set; frees it when not kept. */
static void acpi_load_take(struct acpi_image_set *set, uint8_t *image, size_t size)
{
	if (!acpi_load_is_headerless(image, size) &&
	    acpi_tables_add(&set->tables, image, size)) {
		set->image[set->image_count++] = image;
		return;
	}
	free(image);
}

static int acpi_load_binary(struct acpi_image_set *set, const char *path)
{
	FILE *file = fopen(path, "rb");
	uint8_t *image;
	long size;

	if (!file) {
		fprintf(stderr, "sidecore: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fseek(file, 0, SEEK_END) != 0 || (size = ftell(file)) < 0 ||
	    fseek(file, 0, SEEK_SET) != 0) {
		fprintf(stderr, "sidecore: %s: cannot determine size\n", path);
		fclose(file);
		return -1;
	}
	if (size > (long)ACPI_MAX_TABLE_LENGTH) {
		fprintf(stderr, "sidecore: %s: %ld bytes, larger than any ACPI table, skipped\n",
			path, size);
		fclose(file);
		return 0;
	}
	image = malloc(size ? (size_t)size : 1);
	if (!image || fread(image, 1, (size_t)size, file) != (size_t)size) {
		fprintf(stderr, "sidecore: %s: read failed\n", path);
		free(image);
		fclose(file);
		return -1;
	}
	fclose(file);
	acpi_load_take(set, image, (size_t)size);
	return 0;
}

static int acpi_load_name_is_table(const char *name)
{
	size_t length = strlen(name);

	return length > 4 && strcasecmp(name + length - 4, ".dat") == 0;
}

static int acpi_load_compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Loads every *.dat in the folder, in name order so the result is repeatable. */
static int acpi_load_folder(struct acpi_image_set *set, const char *path)
{
	char **names = NULL;
	size_t count = 0, i;
	struct dirent *entry;
	int status = 0;
	DIR *dir;

	dir = opendir(path);
	if (!dir) {
		fprintf(stderr, "sidecore: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((entry = readdir(dir)) != NULL) {
		char **grown;

		if (!acpi_load_name_is_table(entry->d_name))
			continue;
		grown = realloc(names, (count + 1) * sizeof(*names));
		if (!grown) {
			status = -1;
			break;
		}
		names = grown;
		names[count] = strdup(entry->d_name);
		if (!names[count]) {
			status = -1;
			break;
		}
		count++;
	}
	closedir(dir);
	if (count > 1)
		qsort(names, count, sizeof(*names), acpi_load_compare_names);

	for (i = 0; i < count && status == 0; i++) {
		size_t length = strlen(path) + strlen(names[i]) + 2;
		char *file = malloc(length);

		if (!file) {
			status = -1;
			break;
		}
		snprintf(file, length, "%s/%s", path, names[i]);
		status = acpi_load_binary(set, file);
		free(file);
	}
	for (i = 0; i < count; i++)
		free(names[i]);
	free(names);
	if (status == 0 && count == 0) {
		fprintf(stderr, "sidecore: %s: no *.dat table files\n", path);
		status = -1;
	}
	return status;
}

/* One acpidump table section being reassembled. */
struct dump_section {
	uint8_t *data;
	size_t size;
	size_t capacity;
	int open;
};

static void dump_section_close(struct acpi_image_set *set, struct dump_section *section)
{
	if (section->open && section->size > 0)
		acpi_load_take(set, section->data, section->size);
	else
		free(section->data);
	memset(section, 0, sizeof(*section));
}

/* A section starts with "SIG @ 0xADDRESS" at the start of the line. */
static int dump_is_section_line(const char *line)
{
	const char *at = strstr(line, " @ 0x");

	return at && line[0] != '\0' && !isspace((unsigned char)line[0]);
}

static int dump_hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * Parses "  OFFSET: HH HH ...  ASCII". Returns the number of bytes, or -1
 * when the line is not a hex-dump line. The ASCII column is never read as
 * data: the bytes stop at 16, or at the padding of a short last line.
 */
static int dump_parse_hex_line(const char *line, size_t *offset, uint8_t *bytes)
{
	const char *p = line;
	int count = 0, digits = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	*offset = 0;
	while (dump_hex_value(*p) >= 0 && digits < 8) {
		*offset = *offset * 16 + (size_t)dump_hex_value(*p++);
		digits++;
	}
	if (digits == 0 || *p != ':')
		return -1;
	p++;
	while (count < DUMP_BYTES_PER_LINE && p[0] == ' ' &&
	       dump_hex_value(p[1]) >= 0 && dump_hex_value(p[2]) >= 0 &&
	       (p[3] == ' ' || p[3] == '\0')) {
		bytes[count++] = (uint8_t)(dump_hex_value(p[1]) * 16 + dump_hex_value(p[2]));
		p += 3;
	}
	return count;
}

static int dump_section_append(struct dump_section *section, const uint8_t *bytes, int count)
{
	if (section->size + (size_t)count > section->capacity) {
		size_t capacity = section->capacity ? section->capacity * 2 : 4096;
		uint8_t *grown;

		if (capacity > ACPI_MAX_TABLE_LENGTH)
			return -1;
		grown = realloc(section->data, capacity);
		if (!grown)
			return -1;
		section->data = grown;
		section->capacity = capacity;
	}
	memcpy(section->data + section->size, bytes, (size_t)count);
	section->size += (size_t)count;
	return 0;
}

static int acpi_load_dump(struct acpi_image_set *set, const char *path)
{
	struct dump_section section = { 0 };
	unsigned long line_number = 0;
	size_t line_capacity = 0;
	char *line = NULL;
	int status = 0, sections = 0;
	FILE *file;

	file = fopen(path, "r");
	if (!file) {
		fprintf(stderr, "sidecore: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (status == 0 && getline(&line, &line_capacity, file) >= 0) {
		uint8_t bytes[DUMP_BYTES_PER_LINE];
		size_t offset;
		int count;

		line_number++;
		line[strcspn(line, "\r\n")] = '\0';
		if (dump_is_section_line(line)) {
			dump_section_close(set, &section);
			section.open = 1;
			sections++;
			continue;
		}
		count = dump_parse_hex_line(line, &offset, bytes);
		if (count < 0 || !section.open)
			continue;
		if (offset != section.size) {
			fprintf(stderr, "sidecore: %s:%lu: offset %#zx out of sequence\n",
				path, line_number, offset);
			status = -1;
		} else if (dump_section_append(&section, bytes, count) != 0) {
			fprintf(stderr, "sidecore: %s:%lu: table too large\n", path, line_number);
			status = -1;
		}
	}
	dump_section_close(set, &section);
	free(line);
	fclose(file);
	if (status == 0 && sections == 0) {
		fprintf(stderr, "sidecore: %s: not an acpidump file (no \"SIG @ 0x...\" lines)\n",
			path);
		status = -1;
	}
	return status;
}

int acpi_load_path(struct acpi_image_set *set, const char *path)
{
	struct stat info;
	int status;

	memset(set, 0, sizeof(*set));
	acpi_tables_init(&set->tables);
	if (stat(path, &info) != 0) {
		fprintf(stderr, "sidecore: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(info.st_mode))
		status = acpi_load_folder(set, path);
	else if (acpi_load_name_is_table(path))
		status = acpi_load_binary(set, path);
	else
		status = acpi_load_dump(set, path);
	if (status != 0)
		acpi_load_release(set);
	return status;
}

void acpi_load_release(struct acpi_image_set *set)
{
	unsigned int i;

	for (i = 0; i < set->image_count; i++)
		free(set->image[i]);
	set->image_count = 0;
	acpi_tables_init(&set->tables);
}
