-- wrk script: requests the paths listed in the file given after "--" (one a line; then wrk's
-- thread count), each wrk thread walking the list in turn from its own starting point, so that
-- in a list longer than the requests in flight no two ask the same path (single flight would
-- join them: benchmarks/uncached.py); counts the responses by status and prints one JSON line
-- with the totals, the counts and the latency percentiles (benchmarks/load.py's mix too).
local paths = {}
local counter = 0
statuses = {}
local threads = {}

function setup(thread)
  thread:set("index", #threads)
  table.insert(threads, thread)
end

function init(args)
  for line in io.lines(args[1]) do
    if #line > 0 then paths[#paths + 1] = line end
  end
  local count = tonumber(args[2] or "1")
  counter = math.floor(index * #paths / count)
end

function request()
  counter = counter + 1
  return wrk.format("GET", paths[(counter % #paths) + 1])
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local counts = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      counts[status] = (counts[status] or 0) + count
    end
  end
  local parts = {}
  for status, count in pairs(counts) do table.insert(parts, string.format('"%d": %d', status, count)) end
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "connect_errors": %d, "read_errors": %d, "write_errors": %d, ' ..
    '"timeouts": %d, "p50_us": %d, "p90_us": %d, "p99_us": %d, "max_us": %d, "statuses": {%s}}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    table.concat(parts, ", ")))
end
