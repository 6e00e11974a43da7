set terminal pngcairo noenhanced font "sans,11" size 900,800
set output "figures/heat-write_bw.H-H.na-8192-r0.png"
set title "write_bw.H-H.na-8192-r0: each pair against the reference (1 = reference, as judged; x = failed; grey = not run)"
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "#d9d9d9" fillstyle solid noborder
set xlabel "server"; set ylabel "client"
set size ratio -1
set xrange [-0.5:3-0.5]; set yrange [3-0.5:-0.5]
set xtics ("node1" 0, "node2" 1, "node3" 2) rotate by 90 right; set ytics ("node1" 0, "node2" 1, "node3" 2)
set cbrange [0:1.2]
set palette defined (0 "#67001f", 0.8 "#d6604d", 0.9 "#fddbc7", 1 "#f7f7f7", 1.2 "#2166ac")
set datafile missing "NaN"
set style fill solid 1.0 noborder
plot "figures/heat-write_bw.H-H.na-8192-r0.dat" using 1:2:(0.5):(0.5):3 with boxxy fc palette notitle
set output "figures/hist-write_bw.H-H.na-8192-r0.png"
set terminal pngcairo noenhanced font "sans,11" size 900,500
unset object 1; unset xtics; unset ytics; set xtics; set ytics; set autoscale; set size noratio
set title "write_bw.H-H.na-8192-r0: pairs"
set xlabel "bandwidth (Gb/s)"; set ylabel "pairs"
stats "figures/values-write_bw.H-H.na-8192-r0.dat" using ($1*8/1e9) nooutput
bw = (STATS_max - STATS_min) / 20.0
if (bw <= 0) bw = (STATS_max > 0 ? STATS_max / 20.0 : 1)
bin(x) = bw * floor(x / bw)
set boxwidth bw * 0.9
set style fill solid 0.6
plot "figures/values-write_bw.H-H.na-8192-r0.dat" using (bin(($1*8/1e9))):(1) smooth frequency with boxes lc rgb "#2166ac" notitle
