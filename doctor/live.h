/*
 * live: what only the running machine can answer (not a captured tree).
 *
 * Owns: the CUDA driver via dlopen("libcuda.so.1") (never linked), the
 * libibverbs library version, and the dma-buf registration probe. main()
 * calls these only when the doctor reads the real /sys and /proc.
 */
#ifndef GDR_DOCTOR_LIVE_H
#define GDR_DOCTOR_LIVE_H

#include <stddef.h>

/* cuDriverGetVersion(), e.g. 12040. -ENOENT when libcuda.so.1 does not load. */
int gdr_doctor_cuda_driver_version(int *version, char *err, size_t errlen);

/* cuDeviceTotalMem of the CUDA device at PCI address bdf. 0 or -errno. */
int gdr_doctor_cuda_gpu_memory(const char *bdf, unsigned long long *bytes);

/* Does the CUDA device at bdf hang off the CPU by a C2C link (native host
 * atomics, or its memory a NUMA node)? 1, 0, -1 when the driver or the
 * device cannot be asked. */
int gdr_doctor_cuda_gpu_c2c(const char *bdf);

/* "libibverbs.so.1.14.44.0 (rdma-core 44)" from the loaded library. */
int gdr_doctor_rdma_core_version(char *buf, size_t len);

/* 1 if libibverbs exports ibv_reg_dmabuf_mr, 0 if not. */
int gdr_doctor_verbs_has_dmabuf(void);

/*
 * Ask ibdev's provider to register a dma-buf with an invalid fd: EOPNOTSUPP
 * means no dma-buf support (returns 0); any other refusal means the request
 * reached the kernel driver (returns 1). Negative errno if it cannot run.
 */
int gdr_doctor_verbs_dmabuf_probe(const char *ibdev);

#endif /* GDR_DOCTOR_LIVE_H */
