#!/usr/bin/perl
# Runs an Alpha program under qemu-alpha, the oracle of the guest tests.
#   qemu-oracle.pl [--binfmt] PROG ARGS...
# With --binfmt the program runs in a private user+mount namespace in which
# binfmt_misc hands Alpha ELF files to qemu-alpha again (through
# qemu-binfmt-interp.pl), so that a guest execve() of an Alpha program works
# as on an Alpha machine; plain qemu-alpha passes execve to the host kernel,
# which answers ENOEXEC. Nothing outside the namespace changes. Exits 125
# with a message on stderr if the namespace cannot be set up.
# Perl, not a shell, because shells add PWD, SHLVL and _ to the environment
# that the guest would then see.
# Environment: QEMU_ALPHA (default qemu-alpha), ALPHA_SYSROOT (default
# /usr/alpha-linux-gnu).
use strict;
use warnings;
use File::Basename qw(dirname);
use Cwd qw(abs_path);

my $sysroot = $ENV{ALPHA_SYSROOT} // '/usr/alpha-linux-gnu';
my $qemu = $ENV{QEMU_ALPHA} // 'qemu-alpha';
my @hide = ('-U', 'QEMU_ORACLE_QEMU,QEMU_ORACLE_SYSROOT');

# Returns the absolute path of a command found in PATH, or undef.
sub which {
    my ($cmd) = @_;
    return $cmd if $cmd =~ m{/};
    for my $d (split /:/, $ENV{PATH} // '/usr/bin:/bin') {
        return "$d/$cmd" if -x "$d/$cmd";
    }
    return undef;
}

sub fail { print STDERR "qemu-oracle: $_[0]\n"; exit 125; }

if (@ARGV && $ARGV[0] eq '--inside') {
    # Now inside the new namespaces: mount binfmt_misc and register Alpha.
    shift @ARGV;
    my $interp = shift @ARGV;
    system('mount', '-t', 'binfmt_misc', 'binfmt_misc', '/proc/sys/fs/binfmt_misc') == 0
        or fail('cannot mount binfmt_misc in a user namespace');
    # Alpha ELF64 executables (e_machine 0x9026), as in qemu-user-binfmt. The
    # P flag keeps argv[0]; the interpreter passes it on with -0.
    my $magic = '\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x26\x90';
    my $mask = '\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff';
    open(my $reg, '>', '/proc/sys/fs/binfmt_misc/register')
        or fail("cannot open binfmt_misc/register: $!");
    print $reg ":profileme-alpha:M::$magic:$mask:$interp:P" or fail("register: $!");
    close($reg) or fail("cannot register the binfmt_misc handler: $!");
    my $q = $ENV{QEMU_ORACLE_QEMU};
    exec {$q} $q, '-L', $ENV{QEMU_ORACLE_SYSROOT}, @hide, @ARGV
        or fail("cannot run $q: $!");
}

if (@ARGV && $ARGV[0] eq '--binfmt') {
    shift @ARGV;
    my $q = which($qemu) // fail("$qemu not found");
    $ENV{QEMU_ORACLE_QEMU} = $q;
    $ENV{QEMU_ORACLE_SYSROOT} = $sysroot;
    my $here = dirname(abs_path($0));
    exec('unshare', '--user', '--map-root-user', '--mount', $^X, abs_path($0), '--inside',
        "$here/qemu-binfmt-interp.pl", @ARGV) or fail("cannot run unshare: $!");
}

exec {$qemu} $qemu, '-L', $sysroot, @ARGV or fail("cannot run $qemu: $!");
