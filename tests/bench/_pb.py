import time, sys, redis
from tests.devredis import RedisServer
from redis.utils import HIREDIS_AVAILABLE
with RedisServer() as server:
    c = redis.Redis.from_url(server.url, protocol=3) if False else redis.Redis.from_url(server.url)
    state = b"x" * 1800
    def rate():
        with c.pipeline(transaction=False) as p:
            for w in ("a:1", "t:2"):
                p.incr(f"scopa:rate:requests:{w}:1"); p.expire(f"scopa:rate:requests:{w}:1", 120); p.get(f"scopa:rate:requests:{w}:0")
            p.execute()
    def load():
        c.execute_command("HMGET", "g", "v", "s", "n")
    c.hset("g", mapping={"v": 1, "s": state, "n": 3})
    for f in (rate, load):
        for _ in range(200): f()
        t = time.thread_time(); 
        for _ in range(3000): f()
        print(f.__name__, f"{(time.thread_time()-t)/3000*1e6:.1f} us CPU", "hiredis" if HIREDIS_AVAILABLE else "python parser")
