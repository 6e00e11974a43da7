/* sizing.c - the arithmetic of a run; see sizing.h. */
#include "config.h"

#include "sizing.h"

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

uint64_t gdr_slots_wanted(const struct gdr_roles *r, unsigned tx_depth, unsigned num_qps)
{
    return r->one_in_flight ? 1 : (uint64_t)tx_depth * num_qps;
}

uint64_t gdr_slot_count(uint64_t len, uint64_t want, uint64_t size)
{
    uint64_t n = size ? min_u64(want, len / size) : want;
    return n ? n : 1;
}

uint64_t gdr_buffer_bytes(const struct gdr_roles *r, uint64_t max_size, unsigned tx_depth,
                          unsigned num_qps)
{
    uint64_t want = gdr_slots_wanted(r, tx_depth, num_qps);
    return max_size * gdr_slot_count(GDR_BUFFER_TARGET, want, max_size);
}

uint64_t gdr_share_of(uint64_t iters, unsigned nqp, unsigned q)
{
    if (nqp == 0)
        return 0;
    return iters / nqp + (q < iters % nqp);
}

static uint64_t unit_bytes(uint64_t size, uint64_t slot_bytes)
{
    return slot_bytes && slot_bytes < size ? slot_bytes : size;
}

uint64_t gdr_units_per_msg(uint64_t size, uint64_t slot_bytes)
{
    uint64_t ub = unit_bytes(size, slot_bytes);
    return ub ? size / ub + (size % ub != 0) : 0;
}

struct gdr_unit gdr_unit_at(uint64_t size, uint64_t slot_bytes, uint64_t buf_slots, uint64_t u)
{
    struct gdr_unit x = {0, 0};
    uint64_t per = gdr_units_per_msg(size, slot_bytes), ub = unit_bytes(size, slot_bytes);
    if (!per)
        return x;
    uint64_t msg = u / per, chunk = u % per;
    x.off = (msg % (buf_slots ? buf_slots : 1)) * size + chunk * ub;
    x.len = (uint32_t)min_u64(size - chunk * ub, ub);
    return x;
}

uint64_t gdr_warmup_iters(const struct gdr_config *cfg, const struct gdr_roles *r, uint64_t size)
{
    uint64_t n = cfg->warmup;
    if (cfg->warmup_auto) {
        uint64_t hi = r->one_in_flight ? 100 : 2ull * cfg->tx_depth * cfg->num_qps;
        n = min_u64(size ? GDR_WARMUP_BYTES / size : hi, hi);
    }
    /* Calibrating needs a probe; a receiver needs two arrivals to time. */
    if ((n || cfg->time_per_size > 0) && n < r->min_iters)
        n = r->min_iters;
    return n;
}

uint64_t gdr_calibrated_iters(uint64_t probe_iters, uint64_t probe_ns, double seconds,
                              uint64_t min_iters)
{
    double per_iter = probe_iters ? (double)probe_ns * 1e-9 / (double)probe_iters : 0;
    double n = per_iter > 0 ? seconds / per_iter : (double)GDR_MAX_ITERS;
    if (!(n >= (double)min_iters))     /* also NaN */
        return min_iters;
    return n > (double)GDR_MAX_ITERS ? GDR_MAX_ITERS : (uint64_t)n;
}

double gdr_expected_seconds(uint64_t probe_iters, uint64_t probe_ns, uint64_t iters,
                            uint64_t size, double last_bytes_per_s)
{
    double s = 0;
    if (probe_iters && probe_ns)
        s = (double)probe_ns * 1e-9 * (double)iters / (double)probe_iters;
    else if (last_bytes_per_s > 0)
        s = (double)iters * (double)size / last_bytes_per_s;
    return s > GDR_MAX_SECONDS / 2 ? GDR_MAX_SECONDS / 2 : s;
}

unsigned gdr_send_depth(unsigned tx_depth, unsigned stage_slots)
{
    unsigned staged = 2 * stage_slots;
    return tx_depth > staged ? tx_depth : staged;
}

unsigned gdr_recv_depth(const struct gdr_roles *r, unsigned tx_depth, unsigned stage_slots)
{
    unsigned depth = r->recv_per_tx ? r->recv_per_tx * tx_depth : 1;
    return depth > stage_slots + 1 ? depth : stage_slots + 1;
}
