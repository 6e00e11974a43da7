set encoding utf8
png_term = (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) ? 'pngcairo' : 'png'
eval sprintf('set terminal %s size 900,800 noenhanced font "sans,12"', png_term)
set output "heat-write_bw.H-H.na-8192-r0.png"
set bmargin 6
set title "write_bw.H-H.na-8192-r0: each pair against the reference (1 = reference, as judged)"
set xlabel "server" offset 0,0.3
set ylabel "client"
set datafile missing "NaN"
set style fill solid 1.0 noborder
set xrange [-0.5:3-0.5]; set yrange [3-0.5:-0.5]
set size ratio -1
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "#d9d9d9" fillstyle solid noborder
set cbrange [0.5:1.5]
set palette defined (0.5 "#b35806", 0.75 "#f1a340", 1 "#f7f7f7", 1.25 "#998ec3", 1.5 "#542788")
set cblabel "ratio to the reference (low = worse)"
set xtics ("node1" 0, "node2" 1, "node3" 2) rotate by 90 right
set ytics ("node1" 0, "node2" 1, "node3" 2)
set key below horizontal
plot "heat-write_bw.H-H.na-8192-r0.dat" using 1:2:(0.5):(0.5):3 with boxxy fc palette notitle, \
    NaN with boxes fs solid fc rgb "#d9d9d9" title "not run"
eval sprintf('set terminal %s size 900,500 noenhanced font "sans,12"', png_term)
set output "hist-write_bw.H-H.na-8192-r0.png"
unset object 1; unset xtics; unset ytics; set xtics; set ytics
set autoscale; set size noratio; unset key
set title "write_bw.H-H.na-8192-r0: pairs"
set xlabel "bandwidth (MB/s)" offset 0,0.3
set ylabel "pairs"
stats "values-write_bw.H-H.na-8192-r0.dat" using ($1*1e-06) nooutput
bw = (STATS_max - STATS_min) / 20.0
if (bw <= 0) bw = (STATS_max > 0 ? STATS_max / 20.0 : 1)
bin(x) = bw * floor(x / bw)
set boxwidth bw * 0.9
set style fill solid 0.6
set yrange [0:*]
plot "values-write_bw.H-H.na-8192-r0.dat" using (bin(($1*1e-06))):(1) smooth frequency with boxes lc rgb "#0072B2" notitle
unset output
