# shellcheck shell=sh
# tests/lab-times.sh - sourced by the scripts that run inside the lab, where
# each process started costs 60-150 ms of emulated CPU (docs/lab.md), so
# these helpers start none:
# - the seconds each run took, appended to the file $lap_file as
#   "CENTISECONDS NAME", so that the outer test can name the slowest
#   (lib.sh's lap_report). The clock is /proc/uptime, read by the shell
#   itself, not `date` around every run.
#   Usage: lap_file=FILE; . lab-times.sh; lap_start; ...; lap_end NAME
# - envx NAME=VALUE... CMD ARGS...: what `env NAME=VALUE... CMD ARGS...`
#   does, without env's own exec (two ends a run, hundreds of runs a boot):
#   it exports and execs CMD in the shell it runs in, so run it in the
#   background (`envx ... &`: $! is then CMD's pid, which a test signals)
#   or in a subshell (`(envx ...)`), never bare. It forks nothing itself:
#   a subshell of its own would put a second process between $! and CMD.

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
envx() {
    while [ $# -gt 0 ]; do
        case $1 in [A-Za-z_]*=*) export "${1?}"; shift ;; *) break ;; esac
    done
    exec "$@"
}
