#!/usr/bin/perl
# Checks every sample of a system-wide recording against the side-band
# records around it, as Linux perf prints them:
#   perf script -i FILE --show-task-events --show-mmap-events \
#     --show-switch-events -F pid,tid,comm,cpu,time,ip,dso,period | check-attribution.pl FREQ
# A sample's pid/tid must be the task that the last SWITCH_CPU_WIDE IN of its
# CPU put there (and no OUT since), its comm the last COMM (exec) of that
# task (or its parent's at FORK), its dso the MMAP2 of that process covering
# ip (kernel addresses: [kernel.kallsyms]). Prints "bad N of M: first ..."
# or "ok M", then one line per process: "pid comm samples expected", where
# expected is RATE (samples per second of CPU time: the frequency, or the
# clock over the period) times its time on a CPU between IN and OUT, and
# slices the number of those times; then "jobs N missing LIST": the
# children of the first process (make's jobs) whose process tree has no
# sample.
use strict;
use warnings;
no warnings "portable";   # 64-bit hex addresses

my $freq = shift @ARGV // 4000;
my (%cur, %since, %comm, %maps, %oncpu, %slices, %nsamp, %pcomm, %seen, %parent, $root);
my ($n, $bad, $first) = (0, 0, '');
sub fail { $bad++; $first ||= "$_[0]: $_[1]"; }
sub kernel { return hex($_[0]) >= 0xfffffc0000000000; }

while (my $l = <STDIN>) {
    chomp $l;
    my ($c, $pid, $tid, $cpu, $t, $rest) =
        $l =~ m{^\s*(\S+)\s+(-?\d+)/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(.*)$} or next;
    if ($rest =~ /^PERF_RECORD_SWITCH_CPU_WIDE (IN|OUT)/) {
        if ($1 eq 'IN') { $cur{$cpu} = "$pid/$tid"; $since{$cpu} = $t; }
        else {
            fail($l, "OUT of a task not on the CPU") if ($cur{$cpu} // '') ne "$pid/$tid";
            $oncpu{$pid} += $t - $since{$cpu} if defined $since{$cpu};
            $slices{$pid}++;
            delete $cur{$cpu};
            delete $since{$cpu};
        }
    } elsif ($rest =~ /^PERF_RECORD_COMM exec: (.*):(\d+)\/(\d+)/) {
        $comm{$3} = $1;
        $root //= $2;
        $maps{$2} = [] if $2 == $3;      # exec replaces the address space
        $pcomm{$2}{$1} = 1;
    } elsif ($rest =~ /^PERF_RECORD_FORK\((\d+):(\d+)\):\((\d+):(\d+)\)/) {
        $comm{$2} = $comm{$4};
        $parent{$1} //= $3 if $1 != $3;
        $maps{$1} = [@{ $maps{$3} // [] }] if $1 != $3;
        $pcomm{$1}{ $comm{$4} } = 1 if defined $comm{$4};
    } elsif ($rest =~ /^PERF_RECORD_MMAP2 (-?\d+)\/\d+: \[0x([0-9a-f]+)\(0x([0-9a-f]+)\).*\]: \S+ (.*)$/) {
        push @{ $maps{$1} }, [hex($2), hex($2) + hex($3), $4] if $1 >= 0;
    } elsif ($rest =~ /^PERF_RECORD/) {
    } elsif ($rest =~ /^(\d+)\s+([0-9a-f]+)\s+\((.*)\)$/) {
        my ($ip, $dso) = ($2, $3);
        $n++;
        $nsamp{$pid}++;
        $seen{$pid} = $c;
        if (($cur{$cpu} // '') ne "$pid/$tid") {
            fail($l, "CPU $cpu runs " . ($cur{$cpu} // 'nothing'));
        } elsif (($comm{$tid} // '') ne $c) {
            fail($l, "comm of $tid is " . ($comm{$tid} // 'unknown'));
        } else {
            my $want = '';
            if (kernel($ip)) { $want = '[kernel.kallsyms]'; }
            else {
                for my $m (@{ $maps{$pid} // [] }) {
                    $want = $m->[2] if hex($ip) >= $m->[0] && hex($ip) < $m->[1];
                }
            }
            fail($l, "ip's mapping is '$want'") if $want ne $dso;
        }
    }
}
print $bad ? "bad $bad of $n: $first\n" : "ok $n\n";
for my $p (sort { $a <=> $b } keys %nsamp) {
    printf "%d %s %d %.0f %d\n", $p, $seen{$p}, $nsamp{$p}, ($oncpu{$p} // 0) * $freq, $slices{$p} // 0;
}
my (%tree, @missing);
for my $p (keys %nsamp) {
    my $q = $p;
    $q = $parent{$q} while defined $parent{$q} && $parent{$q} != ($root // -1);
    $tree{$q} += $nsamp{$p} if defined $parent{$q};
}
my @jobs = sort { $a <=> $b } grep { ($parent{$_} // -1) == ($root // -2) } keys %parent;
for my $j (@jobs) { push @missing, $j unless $tree{$j}; }
my $jobs = @jobs;
print "jobs $jobs missing ", join(',', @missing), "\n";
