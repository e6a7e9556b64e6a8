/* SPDX-License-Identifier: MIT */
/*
 * ptr_array.h - the registries of ports, devices and switch ports are
 * arrays of pointers in attach order; taking one out keeps the others'
 * order, so fair turns and port indices stay where they were.
 */
#ifndef SIDECORE_LIB_PTR_ARRAY_H
#define SIDECORE_LIB_PTR_ARRAY_H

/*
 * ptr_array_remove(array, count, item): take item out of the first *count
 * entries of array, closing the gap. Yields the index it had, or -1 when
 * it was not there.
 */
#define ptr_array_remove(array, count, item) ({				\
	unsigned int ptr_array_i_ = 0;					\
	int ptr_array_at_;						\
									\
	while (ptr_array_i_ < *(count) && (array)[ptr_array_i_] != (item))	\
		ptr_array_i_++;						\
	ptr_array_at_ = ptr_array_i_ < *(count) ? (int)ptr_array_i_ : -1;	\
	if (ptr_array_at_ >= 0)						\
		for ((*(count))--; ptr_array_i_ < *(count); ptr_array_i_++)	\
			(array)[ptr_array_i_] = (array)[ptr_array_i_ + 1];	\
	ptr_array_at_;							\
})

#endif
