/* irq.h - where a PCI function's completion interrupts land, from procfs.
 *
 * mlx5 names each completion vector's interrupt "mlx5_compN@pci:BDF" in
 * /proc/interrupts; the CPUs it is delivered to are in
 * /proc/irq/IRQ/effective_affinity_list (smp_affinity_list where the kernel
 * keeps no effective list). A timed loop pinned there shares its CPU with
 * the completions it polls for (placement.c avoids it). libc only, as the
 * rest of topo/. */
#ifndef GDR_IRQ_H
#define GDR_IRQ_H

#include <stddef.h>

/* The CPUs that the completion interrupts ("comp" in the action's name) of
 * PCI function bdf ("0000:81:00.0") are delivered to, as one CPU list
 * ("3,7,0-1": each interrupt's list, comma-joined; "" for none) in
 * list[len]. proc_root NULL: "/proc". Returns how many such interrupts
 * there are (0: none, as for a software device), or a negative errno when
 * /proc/interrupts cannot be read or the list does not fit. */
int gdr_topo_irq_cpulist(const char *proc_root, const char *bdf, char *list, size_t len);

#endif
