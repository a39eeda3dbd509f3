#!/usr/bin/perl
# binfmt_misc interpreter registered by qemu-oracle.pl inside its namespace.
# With the P flag the kernel calls it as: interp FILENAME ORIGINAL-ARGV0 ARGS...
# The guest may have exec'd with an environment of its own, so the settings
# fall back to the usual paths when the oracle's variables are gone; -U keeps
# them out of the guest's environment.
use strict;
use warnings;

my ($file, $argv0, @args) = @ARGV;
my $q = $ENV{QEMU_ORACLE_QEMU} // '/usr/bin/qemu-alpha';
my $sysroot = $ENV{QEMU_ORACLE_SYSROOT} // '/usr/alpha-linux-gnu';
exec {$q} $q, '-L', $sysroot, '-U', 'QEMU_ORACLE_QEMU,QEMU_ORACLE_SYSROOT', '-0', $argv0, $file, @args
    or die "qemu-binfmt-interp: cannot run $q: $!\n";
