#!/usr/bin/perl
# Conformance: GitLab::API::v4 (Perl) against the sandbox.
# Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN. Prints one line per check; exits 1 on the first failure.
# The client sends JSON bodies whose numbers are often strings ("30"), so values must be coerced.
use strict;
use warnings;
use GitLab::API::v4;
use FindBin;
use lib $FindBin::Bin;
use ConformanceHarness;

my $url = $ENV{SANDBOX_URL} or die "SANDBOX_URL is not set\n";
my $admin = GitLab::API::v4->new(url => "$url/api/v4", private_token => $ENV{ADMIN_TOKEN});
my $user = GitLab::API::v4->new(url => "$url/api/v4", private_token => $ENV{USER_TOKEN});

check('current user', $admin->current_user()->{username} eq 'root');
check('version', $admin->version()->{version} =~ /^13\.12\.0/);

$admin->create_group({ name => 'Pl Top', path => 'pl-top', visibility => 'internal', lfs_enabled => 'false' });
my $top = $admin->group('pl-top');
check('create group and get by path', $top && $top->{full_path} eq 'pl-top' && !$top->{lfs_enabled});
$admin->create_group({ name => 'Pl Sub', path => 'pl-sub', parent_id => "$top->{id}" });
my $sub = $admin->group('pl-top/pl-sub');
check('create subgroup (string parent_id)', $sub && $sub->{parent_id} == $top->{id});
my $edited = $admin->edit_group($sub->{id}, { description => 'from perl', two_factor_grace_period => '12' });
check('edit group', $edited->{description} eq 'from perl' && $edited->{two_factor_grace_period} == 12);

check('missing group is undef (GET 404)', !defined $admin->group('pl-top/missing'));
check('and the response was a 404', $admin->rest_client->http_tiny_response->{status} == 404);
fails_with('duplicate path is 400', 400, sub { $admin->create_group({ name => 'x', path => 'pl-top' }) });
fails_with('regular user cannot edit an internal group', 403, sub { $user->edit_group($top->{id}, { description => 'x' }) });
fails_with('bad token is 401', 401, sub {
    GitLab::API::v4->new(url => "$url/api/v4", private_token => 'nope')->groups();
});
fails_with('missing name is 400', 400, sub { $admin->create_group({ path => 'only-path' }) });

for my $i (1 .. 23) {
    $admin->create_group({ name => sprintf('pl many %02d', $i), path => sprintf('pl-many-%02d', $i), parent_id => $top->{id} });
}
my $pager = $admin->paginator('group_subgroups', $top->{id}, { per_page => 10 });
my $pages = 0;
my $seen = 0;
while (my $records = $pager->next_page()) {
    $pages++;
    $seen += grep { $_->{path} =~ /^pl-many-/ } @$records;
}
check('paginator walks every page', $pages == 3 && $seen == 23);
my $all = $admin->paginator('groups', { search => 'pl-many', per_page => 5 })->all();
check('paginator all()', scalar(@$all) == 23);

my $project = $admin->create_project({ name => 'pl-app', namespace_id => "$top->{id}", visibility => 'private' });
check('create project', $project->{path_with_namespace} eq 'pl-top/pl-app');
my $projects = $admin->group_projects($top->{id});
check('group projects', scalar(@$projects) == 1 && $projects->[0]{path} eq 'pl-app');

$admin->create_user({ username => 'pl-member', name => 'Pl Member', email => 'pl@example.com', password => 'password123' });
my ($member) = @{ $admin->users({ username => 'pl-member' }) };
check('create user and find by username', $member && $member->{username} eq 'pl-member');
my $added = $admin->add_group_member($top->{id}, { user_id => "$member->{id}", access_level => '30' });
check('add member (string values)', $added->{access_level} == 30);
fails_with('existing member is 409', 409, sub { $admin->add_group_member($top->{id}, { user_id => $member->{id}, access_level => 30 }) });

$admin->delete_group($top->{id});
check('deleted group is gone', !defined $admin->group($top->{id}));
done();
