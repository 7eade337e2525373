-- wrk script for ops/bench: wrk ... -s push.lua URL -- MODE PREFIX [DUP_SET]
--   MODE info: GET /actuator/info with the admin key (the trivial endpoint)
--   MODE new:  POST a one-record CSV whose source_id is PREFIX-<thread>-<n>, n counting up: new content each time
--   MODE dup:  POST the bodies PREFIX-<thread>-1 .. PREFIX-<thread>-DUP_SET in turn (sent before by a new phase)
-- done() prints one line "RESULT key=value ..." that the scripts read: requests are the answers wrk read, sent the
-- requests it made (those in flight when the phase ended were sent but not answered to wrk).
local threads = {}
counter = 0

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  mode = args[1] or "info"
  prefix = args[2] or "P"
  dupset = tonumber(args[3] or "1000")
  if mode == "info" then
    wrk.method = "GET"
    wrk.path = "/actuator/info"
    wrk.headers["X-Api-Key"] = "admin-demo-key"
  else
    wrk.method = "POST"
    wrk.path = "/api/v1/suppliers/ACME/files"
    wrk.headers["X-Api-Key"] = "acme-demo-key"
    wrk.headers["Content-Type"] = "application/octet-stream"
    wrk.headers["X-File-Name"] = "advice.csv"
  end
end

local function body(n)
  return "source_id,source_version,sku,quantity,delivery_date\n" ..
      prefix .. "-" .. tid .. "-" .. n .. ",1,SKU-1,10,2026-12-01\n"
end

function request()
  if mode == "info" then
    return wrk.format()
  end
  counter = counter + 1
  local n = counter
  if mode == "dup" then
    n = (counter - 1) % dupset + 1
  end
  return wrk.format(nil, nil, nil, body(n))
end

function done(summary, latency, requests)
  local e = summary.errors
  local sent = 0
  for _, thread in ipairs(threads) do
    sent = sent + (thread:get("counter") or 0)
  end
  io.write(string.format("RESULT requests=%d sent=%d duration_us=%d p50_us=%d p99_us=%d non2xx=%d socket_errors=%d\n",
      summary.requests, sent, summary.duration, latency:percentile(50), latency:percentile(99), e.status,
      e.connect + e.read + e.write + e.timeout))
end
