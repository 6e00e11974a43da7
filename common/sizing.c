/* sizing.c - the arithmetic of a run; see sizing.h. */
#include "config.h"

#include "sizing.h"

#include "spec.h"

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
    /* Calibrating needs a probe of at least the fewest messages a phase
     * may have. */
    if ((n || cfg->time_per_size > 0) && n < r->min_iters)
        n = r->min_iters;
    return n;
}

uint64_t gdr_calibrated_iters(uint64_t probe_iters, uint64_t probe_ns, double seconds,
                              uint64_t min_iters)
{
    double per_iter = probe_iters ? (double)probe_ns * 1e-9 / (double)probe_iters : 0;
    double n = per_iter > 0 ? seconds / per_iter : (double)GDR_MAX_ITERS;
    if (!(n >= (double)min_iters)) /* also NaN */
        return min_iters;
    return n > (double)GDR_MAX_ITERS ? GDR_MAX_ITERS : (uint64_t)n;
}

double gdr_expected_seconds(uint64_t probe_iters, uint64_t probe_ns, uint64_t iters, uint64_t size,
                            double last_bytes_per_s)
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
    return tx_depth + 2 * stage_slots;
}

unsigned gdr_recv_depth(const struct gdr_roles *r, unsigned tx_depth, unsigned stage_slots)
{
    unsigned depth = r->recv_per_tx ? r->recv_per_tx * tx_depth : 1;
    unsigned staged = tx_depth + stage_slots + 1;
    return depth > staged ? depth : staged;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
    return b ? a / b + (a % b != 0) : 0;
}

/* Slots that keep window_msgs messages of `size` in flight. */
static uint64_t slots_for_window(uint64_t size, uint64_t slot_bytes, uint64_t window_msgs)
{
    if (size <= slot_bytes)
        return div_up(window_msgs, slot_bytes / (size ? size : 1));
    uint64_t units = gdr_units_per_msg(size, slot_bytes);
    return window_msgs > UINT64_MAX / units ? UINT64_MAX : window_msgs * units;
}

unsigned gdr_ring_slots(uint64_t max_size, uint64_t slot_bytes, uint64_t window_msgs)
{
    if (!slot_bytes)
        return GDR_RING_MIN_SLOTS;
    uint64_t n = slots_for_window(max_size, slot_bytes, window_msgs);
    uint64_t cap = min_u64(GDR_RING_CAP_BYTES / slot_bytes, GDR_STAGE_SLOTS_MAX);
    n = n > GDR_RING_MIN_SLOTS ? n : GDR_RING_MIN_SLOTS;
    n = min_u64(n, cap);
    return n > 2 ? (unsigned)n : 2;
}

void gdr_stage_plan(struct gdr_stage_plan *p, uint64_t size, uint64_t slot_bytes, unsigned slots,
                    uint64_t window_msgs)
{
    p->size = size;
    p->slots = slots ? slots : 1;
    p->item_bytes = unit_bytes(size, slot_bytes);
    p->items_per_msg = gdr_units_per_msg(size, slot_bytes);
    if (!p->items_per_msg)
        p->items_per_msg = 1;
    /* Whole messages share a slot; spread the window over every slot so
     * that several copies are in flight, not one big one. */
    uint64_t fit = p->items_per_msg > 1 || !size ? 1 : slot_bytes / size;
    uint64_t spread = div_up(window_msgs, p->slots);
    p->per_group = min_u64(fit ? fit : 1, spread ? spread : 1);
    p->direct_window =
        window_msgs > UINT64_MAX / p->items_per_msg ? UINT64_MAX : window_msgs * p->items_per_msg;
    p->window = min_u64(p->direct_window, (uint64_t)p->slots * p->per_group);
}

uint64_t gdr_stage_credit_batch(const struct gdr_stage_plan *p)
{
    uint64_t in_flight = min_u64(p->slots, p->window / (p->per_group ? p->per_group : 1));
    return in_flight / 4 ? in_flight / 4 : 1;
}

struct gdr_stage_item gdr_stage_item(const struct gdr_stage_plan *p, uint64_t buf_slots, uint64_t i)
{
    struct gdr_stage_item x = {0, 0, 0, 0, 0};
    struct gdr_unit u = gdr_unit_at(p->size, p->item_bytes, buf_slots, i);
    x.off = u.off;
    x.len = u.len;
    x.group = i / p->per_group;
    x.slot = (unsigned)(x.group % p->slots);
    x.ring_off = (i % p->per_group) * p->item_bytes;
    return x;
}

uint64_t gdr_stage_items(const struct gdr_stage_plan *p, uint64_t iters)
{
    return iters * p->items_per_msg;
}

uint64_t gdr_stage_groups(const struct gdr_stage_plan *p, uint64_t iters)
{
    return div_up(gdr_stage_items(p, iters), p->per_group);
}

uint64_t gdr_stage_group_start(const struct gdr_stage_plan *p, uint64_t iters, uint64_t g)
{
    uint64_t total = gdr_stage_items(p, iters);
    return g >= div_up(total, p->per_group) ? total : g * p->per_group;
}

uint64_t gdr_stage_bytes_before(const struct gdr_stage_plan *p, uint64_t i)
{
    uint64_t msgs = i / p->items_per_msg, part = i % p->items_per_msg;
    return msgs * p->size + min_u64(part * p->item_bytes, p->size);
}

uint64_t gdr_stage_msgs_before(const struct gdr_stage_plan *p, uint64_t i)
{
    return div_up(i, p->items_per_msg);
}
