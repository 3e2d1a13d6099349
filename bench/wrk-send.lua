-- wrk script for the send benchmark: the method, body and headers come from the environment
-- (set by bench/sms-send.mjs), so one script serves the v2 POST and the legacy GET.
wrk.method = os.getenv("BENCH_METHOD") or "GET"
local body = os.getenv("BENCH_BODY")
if body and body ~= "" then wrk.body = body end
local auth = os.getenv("BENCH_AUTH")
if auth and auth ~= "" then wrk.headers["Authorization"] = auth end
if wrk.method == "POST" then wrk.headers["Content-Type"] = "application/json" end
