#!/usr/bin/perl
# Conformance: GitLab::API::v4 (Perl) deployments, environments and templates against the licensed sandbox seeded by
# test/conformance/deployments-templates.test.ts. The client can only list and read deployments, so they come from
# the fixture. Environment: SANDBOX_URL, ADMIN_TOKEN, USER_TOKEN, REPORTER_TOKEN, SHA.
# Prints one line per check; exits 1 on the first failure.
use strict;
use warnings;
use GitLab::API::v4;
use FindBin;
use lib $FindBin::Bin;
use ConformanceHarness;

my $url = $ENV{SANDBOX_URL} or die "SANDBOX_URL is not set\n";
my $sha = $ENV{SHA} or die "SHA is not set\n";
my $admin = GitLab::API::v4->new(url => "$url/api/v4", private_token => $ENV{ADMIN_TOKEN});
my $user = GitLab::API::v4->new(url => "$url/api/v4", private_token => $ENV{USER_TOKEN});
my $reporter = GitLab::API::v4->new(url => "$url/api/v4", private_token => $ENV{REPORTER_TOKEN});
my $guest = GitLab::API::v4->new(url => "$url/api/v4");

my $deployments = $reporter->deployments('acme/api');
check('list deployments', join(',', map { $_->{iid} } @$deployments) eq '1,2,3');
my $prod = $deployments->[0];
check('environment and deployable', $prod->{environment}{name} eq 'production'
    && $prod->{deployable}{name} eq 'deploy' && $prod->{sha} eq $sha);
my $desc = $reporter->deployments('acme/api', { order_by => 'iid', sort => 'desc' });
check('order_by and sort', join(',', map { $_->{iid} } @$desc) eq '3,2,1');
my $staging = $reporter->deployments('acme/api', { environment => 'staging' });
check('filter by environment', scalar(@$staging) == 1 && $staging->[0]{iid} == 2);
my $updated = $reporter->deployments('acme/api', { updated_before => '2023-05-02T10:00:00Z' });
check('filter by updated_before (inclusive)', join(',', map { $_->{iid} } @$updated) eq '1,2');
my $all = $reporter->paginator('deployments', 'acme/api', { per_page => 2 })->all();
check('paginator', scalar(@$all) == 3);
my $one = $reporter->deployment('acme/api', $deployments->[2]{id});
check('get one', $one->{iid} == 3 && $one->{status} eq 'created' && !defined $one->{deployable});
check('missing deployment is undef (GET 404)', !defined $reporter->deployment('acme/api', 999999));
fails_with('an unknown status filter is a 400', 400, sub { $reporter->deployments('acme/api', { status => 'done' }) });
fails_with('authentication is required', 401, sub { $guest->deployments('acme/api') });

my $envs = $reporter->environments('acme/api');
check('environments', join(',', map { $_->{name} } @$envs) eq 'production,staging,review/feature-x');

my $gitignores = $guest->gitignores_templates();
check('gitignore templates', scalar(grep { $_->{key} eq 'Python' } @$gitignores) == 1);
check('a gitignore template', $guest->gitignores_template('Python')->{content} =~ /__pycache__/);
check('missing gitignore is undef (GET 404)', !defined $guest->gitignores_template('Cobol'));
my $ci = $guest->gitlab_ci_ymls_templates();
check('CI templates', scalar(grep { $_->{name} eq 'Go' } @$ci) == 1);
check('a CI template', $guest->gitlab_ci_ymls_template('Go')->{content} =~ /image: golang/);
my $licenses = $guest->license_templates({ popular => 'false' });
check('license templates (popular=false)', join(',', map { $_->{key} } @$licenses) eq 'bsd-2-clause,bsd-3-clause,isc,ncsa,unlicense');
my $mit = $guest->license_template('mit', { fullname => 'Perl Monger' });
check('a license with the full name', $mit->{content} =~ /Copyright \(c\) 2023 Perl Monger/);
my $dockerfiles = $guest->_call_rest_client('GET', 'templates/dockerfiles', [], {});
check('dockerfile templates (raw call)', join(',', map { $_->{name} } @$dockerfiles) eq 'Binary,Golang,Node,Python,Ruby');
my $project_tpl = $reporter->_call_rest_client('GET', 'projects/:project_id/templates/:type/:key',
    ['acme/api', 'licenses', 'ncsa'], { query => { project => 'API', fullname => 'Acme' } });
check('a project license template (raw call)', $project_tpl->{content} =~ /Developed by: API/);
done();
