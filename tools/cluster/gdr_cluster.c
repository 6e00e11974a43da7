/* gdr-cluster-core - the C behind scripts/gdr-cluster: it schedules and
 * analyses; the script only launches.
 *
 *   plan         nodes, pairing, rails, tests -> plan.json (rounds -> steps -> runs)
 *   plan-runs    one round of a plan as tab-separated lines for the shell
 *   rails        this node's GPU <-> nearest NIC rails as JSON
 *   matrix       node x node CSV per test, size and rail from a results directory
 *   suspects     robust statistics over the matrices -> suspects.json with retests
 *   retest-runs  the retest list of suspects.json as tab-separated lines
 *   confirm      judge the suspects from the retest results
 *   manifest     manifest.json from the plan and the script's run status lines
 *   report       report.md: what ran, per-rail and per-node tables, suspects
 *   agent-runs   one node's runs of a plan, its end of each (agent mode)
 *   collect      the agents' end lines -> run status lines (agent mode)
 *   cell         a client document as one line of numbers (agent mode)
 *   aggregate    node-pair bandwidth summed over the rails (gdr-report's lead figure)
 *
 * Exit codes: 0 ok, 1 suspects confirmed or unresolved (confirm), 2 bad
 * input, 3 environment (sysfs unreadable). This file holds --help and the
 * dispatch; each subcommand lives in core_*.c (core_cli.h). */
#include "config.h"

#include "core_cli.h"
#include "error.h"

#include <stdio.h>
#include <string.h>

static const char usage_text[] =
    "usage: gdr-cluster-core COMMAND ARGS\n"
    "  plan (--hosts A,B,.. | --hostfile FILE) [-o PLAN] [--pairing full|quick|random:K]\n"
    "       [--seed N] [--budget DURATION] [--pairs FILE] [--max-concurrent K] [--serial]\n"
    "       [--rails auto|all|LIST] [--rails-dir DIR] [--rails-serial] [--tools LIST]\n"
    "       [--placements LIST] [--gdr LIST] [--one-direction] [--sizes MIN:MAX[:F]]\n"
    "       [--time-per-size SEC] [--run-overhead SEC] [--port N] [--leave-out A,B,..]\n"
    "       [--shared-nic-together] [--soak DURATION [--rotate DURATION]]\n"
    "                      write the plan (the nodes, rails, tests and pairing rule:\n"
    "                      runs are computed from it); print 'nodes N rounds R steps S\n"
    "                      runs M estimated_s E [seed S]' on stdout. random:K: every\n"
    "                      node meets K partners, no pair twice (--seed: the order;\n"
    "                      default: new each time, kept in the plan). --budget: a plan\n"
    "                      estimated over DURATION (7200, 90m, 2h, 1:30:00) is refused,\n"
    "                      naming the random:K that fits. --rails LIST: rail numbers or\n"
    "                      NIC names (a NIC no GPU uses: one more rail, no GPU);\n"
    "                      rails that share a NIC run in separate steps unless\n"
    "                      --shared-nic-together; --leave-out: nodes kept in the\n"
    "                      node list (matrix rows, retests) but in no run. --soak:\n                      the rounds cycled, --rotate each (default: the soak over\n                      them, each once), a round's steps sharing its seconds;\n                      run ids TEST.rRAIL.sROUND.CLIENT_SERVER\n"
    "  plan-runs PLAN ROUND|all\n"
    "                      ROUND STEP ID TOOL PLACEMENT GDR RAIL PORT CNODE CDEV CGPU\n"
    "                      SNODE SDEV SGPU [SOAK_S], tab-separated, '-' for a default;\n                      SOAK_S: a soak's run, its --soak seconds\n"
    "  agent-runs PLAN NODE [--skip FILE]\n"
    "                      NODE's own runs: ROUND STEP ID TOOL PLACEMENT GDR RAIL PORT\n"
    "                      ROLE PEER DEV GPU [SOAK_S] (its end); --skip: run ids not\n                      to run\n"
    "  collect --plan PLAN --dir RESULTS -o STATUS [--interrupted] [--agent-errors FILE]\n"
    "                      RESULTS/agents/NODE.ends -> run status lines in plan order\n"
    "                      (as manifest reads them); a failed run's client document\n"
    "                      becomes ID.failed-client.json; print 'ok N failed N missing\n"
    "                      N agents_started N agents_done N'. --interrupted: a run\n"
    "                      with an end missing is missing, not failed\n"
    "  cell DOC [--gdr on|off|na]\n"
    "                      the client document ID.client.json as one line: ID\n"
    "                      LATENCY RATE GDR_OFF SIZE:VALUE:LIMIT:CLEAN,... (the agent\n"
    "                      appends it to agents/NODE.cells); exit 2 and why when DOC is\n"
    "                      not a complete run's document\n"
    "  soak-end DOC       exit 0 when DOC is a complete soak's document (its end's\n                      exit 1 was the soak's findings), else 1\n  rails [--sysfs-root DIR] [--procfs-root DIR] [--node NAME]\n"
    "                      this node's rails (GPU i with its rail NIC: the nearest\n"
    "                      with an ACTIVE port; NICs no GPU uses, ports down) and its\n"
    "                      software (gdrbench, kernel, NVIDIA driver, NIC firmware)\n"
    "                      and the rails' PCIe links, as JSON\n"
    "  matrix --plan PLAN --dir RESULTS [-o DIR] [--heat DIR [--draw]] [--save-cells FILE]\n"
    "       [--cells FILE] [--agents DIR --status TSV]\n"
    "                      matrix-TEST-SIZE-rRAIL.csv (rows: client, columns: server);\n"
    "                      --heat: {heat,failed,values,layout}-TEST-SIZE-rRAIL.dat for\n"
    "                      gnuplot (over 64 nodes: blocks, and top-*.dat, the worst\n"
    "                      nodes' cells); --draw: their gnuplot scripts and figures\n"
    "                      (heat-, hist-, top-, panel-*.png; one gnuplot);\n"
    "                      --save-cells: every cell to FILE, which\n"
    "                      --cells (here, suspects, report) reads instead of the\n"
    "                      documents (with --heat: the figures only); --agents: the\n"
    "                      agents' lines (DIR/NODE.cells) first, the runs failed in\n"
    "                      --status FAILED, the documents of the runs left\n"
    "  suspects --plan PLAN --dir RESULTS [-o FILE] [--min-link-pct P] [--min-pct-of-limit P]\n"
    "       [--tolerance-pct P] [--size BYTES] [--port N] [--manifest FILE] [--cells FILE]\n"
    "       [--status TSV [--unreachable FILE]]\n"
    "                      write suspects.json; print 'suspects N retest M';\n"
    "                      --manifest: the dead nodes too (unreachable, or failing\n"
    "                      from some round on), first, each with one retest;\n"
    "                      --status (the run status lines in plan order) and\n"
    "                      --unreachable (NODE<TAB>REASON): the same from the\n"
    "                      manifest's sources, a tenth of its size. A soak plan:\n                      \"soak\", its flapping links and nodes (no retest)\n"
    "  retest-runs SUSPECTS --plan PLAN\n"
    "                      the retest runs, as plan-runs prints them (ROUND = suspect)\n"
    "  confirm SUSPECTS --plan PLAN --dir RETEST_RESULTS [-o FILE] [--status TSV]\n"
    "                      mark each suspect confirmed, cleared or unresolved; print\n"
    "                      'confirmed C cleared K unresolved U'; exit 1 if C + U > 0;\n"
    "                      --status: the retests' status lines (a dead node's verdict)\n"
    "  manifest --plan PLAN --status TSV -o FILE [--set KEY=VALUE]... [--arg A]...\n"
    "       [--args-file FILE] [--unreachable FILE]\n"
    "                      manifest.json from the plan and the run status lines (ID\n"
    "                      STATUS CRC SRC DURATION RESUMED REASON [CLASS [END]],\n"
    "                      tab-separated; a later line for an ID wins); print\n"
    "                      'planned N ok N failed N missing N'. --unreachable: NODE\n"
    "                      REASON lines (tab) of the nodes the rails probe missed\n"
    "  aggregate --plan PLAN --dir RESULTS [-o FILE] [--cells FILE] [--suspects FILE]\n"
    "                      the node-pair bandwidth summed over the rails per bandwidth\n"
    "                      test and size: each pair's sum, min/median/max over the pairs\n"
    "                      whose every rail was measured (JSON; default stdout);\n                      --suspects: a soak's findings (its \"soak\") carried too\n"
    "  report --plan PLAN --dir RESULTS [-o FILE] [--suspects FILE] [--manifest FILE]\n"
    "       [--figures DIR] [--title TEXT] [--min-link-pct P] [--min-pct-of-limit P]\n"
    "       [--tolerance-pct P] [--size B] [--cells FILE] [--worst N]\n"
    "                      report.md (figures linked relative to -o's directory);\n"
    "                      per matrix the N worst nodes (default 20; 0: every node)\n"
    "  --help, --version\n"
    "exit: 0 ok, 1 suspects confirmed or unresolved, 2 bad input, 3 environment\n";

int main(int argc, char **argv)
{
    if (argc < 2)
        return gdr_core_usage_error("no command");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        gdr_print_version("gdr-cluster-core");
        return 0;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {
        {"plan", gdr_core_cmd_plan},           {"plan-runs", gdr_core_cmd_plan_runs},
        {"rails", gdr_core_cmd_rails},         {"matrix", gdr_core_cmd_matrix},
        {"suspects", gdr_core_cmd_suspects},   {"retest-runs", gdr_core_cmd_retest_runs},
        {"confirm", gdr_core_cmd_confirm},     {"manifest", gdr_core_cmd_manifest},
        {"report", gdr_core_cmd_report},       {"agent-runs", gdr_core_cmd_agent_runs},
        {"collect", gdr_core_cmd_collect},     {"cell", gdr_core_cmd_cell},
        {"aggregate", gdr_core_cmd_aggregate}, {"soak-end", gdr_core_cmd_soak_end},
    };
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        if (!strcmp(cmd, cmds[i].name))
            return cmds[i].fn(argc - 1, argv + 1); /* argv[0]: the command */
    return gdr_core_usage_error("unknown command '%s'", cmd);
}
