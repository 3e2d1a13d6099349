-- wrk script for the send benchmark: the method, body and headers come from the environment
-- (set by bench/sms-send.mjs), so one script serves the v2 POST and the legacy GET.
-- BENCH_VARY (optional): a run of digits in the path or body replaced in every request by
-- random digits of the same length, as an OTP's code differs in every send.
wrk.method = os.getenv("BENCH_METHOD") or "GET"
local body = os.getenv("BENCH_BODY")
if body and body ~= "" then wrk.body = body end
local auth = os.getenv("BENCH_AUTH")
if auth and auth ~= "" then wrk.headers["Authorization"] = auth end
if wrk.method == "POST" then wrk.headers["Content-Type"] = "application/json" end

local vary = os.getenv("BENCH_VARY")
if vary and vary ~= "" then
  local width = "%0" .. #vary .. "d"
  local top = 10 ^ #vary - 1
  math.randomseed(os.time() + math.floor(os.clock() * 1e6))
  request = function()
    local code = string.format(width, math.random(0, top))
    local path = string.gsub(wrk.path, vary, code)
    local sent = wrk.body and string.gsub(wrk.body, vary, code) or nil
    return wrk.format(nil, path, nil, sent)
  end
end
