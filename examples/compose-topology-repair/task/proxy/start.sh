#!/bin/sh
# Seeds the shared upstream file (the fault: port 8001), starts nginx, then reloads it on
# every change of the file, after `nginx -t` accepts it.
set -u
conf=/etc/nginx/conf.d/upstream.conf
[ -e "$conf" ] || cp /opt/proxy/upstream.conf "$conf"
chmod 0777 /etc/nginx/conf.d
chmod 0666 "$conf"
nginx
seen=$(md5sum "$conf")
while sleep 1; do
    now=$(md5sum "$conf" 2>/dev/null || true)
    if [ "$now" != "$seen" ]; then
        seen=$now
        if nginx -t >/dev/null 2>&1; then nginx -s reload; echo "proxy: reloaded"; else echo "proxy: nginx -t refused the change"; fi
    fi
done
