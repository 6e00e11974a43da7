# shellcheck shell=sh
# tests/lab-times.sh - sourced by the scripts that run inside the lab: the
# seconds each run took, appended to the file $lap_file as "CENTISECONDS
# NAME", so that the outer test can name the slowest (lib.sh's lap_report).
# The clock is /proc/uptime, read by the shell itself: under the lab's
# emulation each process started costs 40-60 ms, which `date` around every
# run would add.
# Usage: lap_file=FILE; . lab-times.sh; lap_start; ...; lap_end NAME

# lap_now: /proc/uptime in hundredths of a second, into $lap_cs
lap_now() {
    read -r lap_up _ </proc/uptime
    lap_cs=${lap_up%.*}${lap_up#*.}
}
lap_start() { lap_now; lap_t0=$lap_cs; }
lap_end() {   # NAME: the time since lap_start
    lap_now
    [ -z "${lap_file:-}" ] || echo "$((lap_cs - lap_t0)) $1" >>"$lap_file"
}
