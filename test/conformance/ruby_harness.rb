# Shared by the ruby gem's conformance scripts (test/conformance/ruby_*.rb).
# Environment: SANDBOX_URL. `check` prints one line per check and exits 1 on the first failure; `raises` expects the
# block to fail with a client error of that class and status; `done` prints "OK <n> checks", which the runner looks for.
require "gitlab"

URL = ENV.fetch("SANDBOX_URL")
$checks = 0

# A client of the sandbox's REST interface with the given token.
def client(token)
  Gitlab.client(endpoint: "#{URL}/api/v4", private_token: token)
end

def check(name, condition, detail = "")
  unless condition
    puts "FAIL #{name} #{detail}"
    exit 1
  end
  $checks += 1
  puts "ok #{name}"
end

def raises(name, klass, status)
  yield
  check(name, false, "expected #{klass}")
rescue Gitlab::Error::ResponseError => e
  check(name, e.is_a?(klass) && e.response_status == status, "got #{e.class} #{e.response_status}: #{e.message}")
  e
end

def done
  puts "OK #{$checks} checks"
end
