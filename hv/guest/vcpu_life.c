/* SPDX-License-Identifier: MIT */
/*
 * vcpu_life.c - start signals bound to one life of a guest, and the
 * parking that ends a life (hv/guest/vcpu_life.h, docs/vmx.md "Secondary
 * vCPUs").
 */
#include "guest/vcpu_life.h"

#define STARTUP_GEN_SHIFT	8
#define STARTUP_VECTOR_MASK	0xffu

static bool vcpu_life_open(uint32_t gen)
{
	return !(gen & 1);
}

void vcpu_life_init(struct guest_life *life, unsigned int vcpu_count)
{
	*life = (struct guest_life){ .gen = 1, .vcpu_count = vcpu_count };
}

void vcpu_life_begin(struct guest_life *life)
{
	(void)__atomic_add_fetch(&life->gen, 1, __ATOMIC_SEQ_CST);
}

enum vcpu_life_start vcpu_life_start(struct guest_life *life, unsigned int target,
				     uint8_t vector)
{
	struct vcpu_life *t = &life->vcpu[target];
	uint32_t gen = __atomic_load_n(&life->gen, __ATOMIC_SEQ_CST);
	uint64_t old = __atomic_load_n(&t->startup, __ATOMIC_ACQUIRE);
	uint64_t signal = (uint64_t)gen << STARTUP_GEN_SHIFT | vector;

	if (!vcpu_life_open(gen))
		return VCPU_LIFE_ENDING;
	/* One per life, the first (SDM Vol. 3A §8.4.4.1); an older life's is replaced. */
	do {
		if (old >> STARTUP_GEN_SHIFT == gen)
			return VCPU_LIFE_IGNORED;
	} while (!__atomic_compare_exchange_n(&t->startup, &old, signal, false,
					      __ATOMIC_RELEASE, __ATOMIC_ACQUIRE));
	return VCPU_LIFE_STARTED;
}

void vcpu_life_park(struct guest_life *life, unsigned int index)
{
	__atomic_store_n(&life->vcpu[index].parked, 1, __ATOMIC_SEQ_CST);
}

bool vcpu_life_take(struct guest_life *life, unsigned int index, uint8_t *vector)
{
	struct vcpu_life *v = &life->vcpu[index];
	uint32_t gen = __atomic_load_n(&life->gen, __ATOMIC_ACQUIRE);
	uint64_t startup = __atomic_load_n(&v->startup, __ATOMIC_ACQUIRE);

	if (!vcpu_life_open(gen) || startup >> STARTUP_GEN_SHIFT != gen || v->ran == gen)
		return false;
	/* Unpark, then look again: vcpu_life_end() closes, then looks at parked. */
	__atomic_store_n(&v->parked, 0, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&life->gen, __ATOMIC_SEQ_CST) != gen) {
		__atomic_store_n(&v->parked, 1, __ATOMIC_SEQ_CST);
		return false;
	}
	v->ran = gen;
	*vector = (uint8_t)(startup & STARTUP_VECTOR_MASK);
	return true;
}

bool vcpu_life_current(const struct guest_life *life, unsigned int index)
{
	return __atomic_load_n(&life->gen, __ATOMIC_ACQUIRE) == life->vcpu[index].ran;
}

bool vcpu_life_end(struct guest_life *life, const struct vcpu_life_ops *ops,
		   unsigned int *stuck)
{
	bool all;

	(void)__atomic_add_fetch(&life->gen, 1, __ATOMIC_SEQ_CST);
	for (unsigned int i = 1; i < life->vcpu_count; i++)
		ops->ask(ops->ctx, i);
	do {
		all = true;
		for (unsigned int i = 1; i < life->vcpu_count; i++) {
			while (!__atomic_load_n(&life->vcpu[i].parked, __ATOMIC_SEQ_CST)) {
				all = false;
				if (!ops->wait(ops->ctx, i)) {
					*stuck = i;
					return false;
				}
			}
		}
	} while (!all);
	return true;
}
