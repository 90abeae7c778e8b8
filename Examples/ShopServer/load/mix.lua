-- The load test's requests, for wrk: 45% GET /accounts/:id, 45% GET /orders/:id, 10% GET /products,
-- ids drawn uniformly from the seeded rows (1,000 accounts, 10,000 orders), the same sequence in
-- every run. `done` prints one RESULT line that load-test.sh reads.
local accounts = 1000
local orders = 10000
local threads = 0

function setup(thread)
   threads = threads + 1
   thread:set("seed", 7919 * threads)
end

function init(args)
   math.randomseed(seed)
end

function request()
   local pick = math.random(100)
   local path
   if pick <= 45 then
      path = "/accounts/" .. math.random(accounts)
   elseif pick <= 90 then
      path = "/orders/" .. math.random(orders)
   else
      path = "/products"
   end
   return wrk.format("GET", path)
end

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      "RESULT requests=%d duration_us=%d connect=%d read=%d write=%d status=%d timeout=%d p50_us=%d p99_us=%d\n",
      summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
      latency:percentile(50), latency:percentile(99)))
end
