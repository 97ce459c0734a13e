package ConformanceHarness;
# Shared by the GitLab::API::v4 conformance scripts (test/conformance/perl_*.pl).
# `check` prints one line per check and exits 1 on the first failure; `fails_with` expects the code to croak with
# that HTTP status; `done` prints "OK <n> checks", which the runner looks for.
use strict;
use warnings;
use Exporter 'import';
use Try::Tiny;

our @EXPORT = qw(check fails_with done);

my $checks = 0;

sub check {
    my ($name, $ok, $detail) = @_;
    if (!$ok) {
        print "FAIL $name " . ($detail // '') . "\n";
        exit 1;
    }
    $checks++;
    print "ok $name\n";
}

# The client croaks with "Error <VERB>ing <url> (HTTP <status>): ..." for failures other than GET 404.
sub fails_with {
    my ($name, $status, $code) = @_;
    my $error = '';
    try { $code->(); } catch { $error = "$_"; };
    check($name, $error =~ /\(HTTP \Q$status\E\)/, "error was: $error");
}

sub done {
    print "OK $checks checks\n";
}

1;
