/* SPDX-License-Identifier: MIT */
/*
 * fuzz_multiboot2.c - arbitrary bytes as a multiboot2 information structure.
 *
 * Whatever bootinfo_parse() makes of the input must be well formed, and the
 * boot flow built on it (RAM minus modules, clipped to windows, handed to a
 * page pool, allocated and freed again) must keep the memmap invariants and
 * give every page back. A broken invariant aborts, which libFuzzer reports.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "init/bootinfo.h"
#include "mm/page_alloc.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define FUZZ_MAX_BLOCKS 16

static struct boot_info info;
static struct memmap ram, window;
static struct page_pool pool;

static void check_memmap(const struct memmap *map)
{
	unsigned int i;

	CHECK(map->count <= MEMMAP_MAX_RANGES);
	for (i = 0; i < map->count; i++) {
		const struct mem_range *range = &map->range[i];

		CHECK(range->length > 0);
		CHECK(range->length <= UINT64_MAX - range->base);
		CHECK(memmap_contains(map, range->base, range->length));
		CHECK(memmap_overlaps(map, range->base, range->length));
		if (i > 0)
			CHECK(map->range[i - 1].base + map->range[i - 1].length < range->base);
	}
}

static void check_info(void)
{
	unsigned int i;

	CHECK(info.module_count <= BOOTINFO_MAX_MODULES);
	CHECK(info.rsdp_size == 0 || info.rsdp_size == 20 || info.rsdp_size == 36);
	CHECK(strnlen(info.cmdline, sizeof(info.cmdline)) < sizeof(info.cmdline));
	check_memmap(&info.ram);
	for (i = 0; i < info.module_count; i++) {
		const struct boot_module *module = &info.module[i];
		const struct boot_module *found;

		CHECK(module->start <= module->end);
		CHECK(strnlen(module->name, BOOTINFO_NAME_MAX) < BOOTINFO_NAME_MAX);
		found = bootinfo_find_module(&info, module->name);
		CHECK(found && found <= module);
		CHECK(strcmp(found->name, module->name) == 0);
	}
}

/* RAM minus every module, as the hypervisor computes it at boot. */
static void exercise_memmap(void)
{
	uint64_t before;
	unsigned int i;

	ram = info.ram;
	for (i = 0; i < info.module_count; i++) {
		const struct boot_module *module = &info.module[i];
		uint64_t length = module->end - module->start;

		before = memmap_total(&ram);
		if (memmap_remove(&ram, module->start, length)) {
			CHECK(!memmap_overlaps(&ram, module->start, length));
			CHECK(memmap_total(&ram) <= before);
		}
		check_memmap(&ram);
	}

	/* Clip a copy to the window between the first two modules. */
	window = ram;
	if (info.module_count >= 2) {
		uint64_t base = info.module[0].start;
		uint64_t length = info.module[1].end - base;

		memmap_clip(&window, base, length);
		check_memmap(&window);
		CHECK(memmap_total(&window) <= memmap_total(&ram));
	}

	/* Putting the modules back must cover them again. */
	for (i = 0; i < info.module_count; i++) {
		const struct boot_module *module = &info.module[i];
		uint64_t length = module->end - module->start;

		if (memmap_add(&window, module->start, length))
			CHECK(memmap_contains(&window, module->start, length));
		check_memmap(&window);
	}
}

/* Feeds the RAM left over to a pool, allocates a few blocks, frees them. */
static void exercise_page_pool(const uint8_t *data, size_t size)
{
	uint64_t block[FUZZ_MAX_BLOCKS], length[FUZZ_MAX_BLOCKS];
	uint64_t free_before;
	unsigned int i, count = 0;

	page_pool_init(&pool);
	for (i = 0; i < ram.count; i++)
		page_pool_add(&pool, ram.range[i].base, ram.range[i].length);
	check_memmap(&pool.free);
	CHECK(page_pool_free_bytes(&pool) == pool.total_bytes);
	free_before = page_pool_free_bytes(&pool);

	/* The input's last bytes pick the block sizes: 1-8 pages or 2 MiB. */
	for (i = 0; i < FUZZ_MAX_BLOCKS && i < size; i++) {
		uint8_t pick = data[size - 1 - i];
		uint64_t bytes = (pick & 0x80) ? PAGE_SIZE_2M : ((pick & 7) + 1) * PAGE_SIZE;
		uint64_t align = (pick & 0x80) ? PAGE_SIZE_2M : PAGE_SIZE;
		uint64_t phys = page_pool_alloc(&pool, bytes, align);

		if (!phys)
			continue;
		CHECK(phys % align == 0);
		CHECK(memmap_contains(&ram, phys, bytes));
		CHECK(!memmap_overlaps(&pool.free, phys, bytes));
		block[count] = phys;
		length[count] = bytes;
		count++;
	}
	check_memmap(&pool.free);

	/*
	 * Freed newest first, each free restores the pool exactly as it was
	 * before that allocation, so no free can find the extent table full.
	 * Each block is freed twice: the second must be refused, not merged.
	 */
	while (count--) {
		page_pool_free(&pool, block[count], length[count]);
		page_pool_free(&pool, block[count], length[count]);
		check_memmap(&pool.free);
	}
	CHECK(page_pool_free_bytes(&pool) == free_before);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (bootinfo_parse(&info, data, size) != 0)
		return 0;
	check_info();
	exercise_memmap();
	exercise_page_pool(data, size);
	return 0;
}
