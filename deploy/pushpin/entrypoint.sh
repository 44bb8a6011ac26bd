# The configuration with its secrets and its upstream from the environment, written where
# a read-only container can (/tmp), then Pushpin in the foreground, logging to stdout.
#   GRIP_KEY        the key it signs requests with: the API's GRIP_KEY (16+ characters)
#   API_UPSTREAM    where the API is, host:port (default api:8000)
set -eu
: "${GRIP_KEY:?set GRIP_KEY, the same as the API's}"
mkdir -p /tmp/pushpin/run
sed "s|@GRIP_KEY@|${GRIP_KEY}|" /etc/scopa-pushpin/pushpin.conf > /tmp/pushpin/pushpin.conf
sed "s|@API_UPSTREAM@|${API_UPSTREAM:-api:8000}|" /etc/scopa-pushpin/routes > /tmp/pushpin/routes
exec pushpin --config /tmp/pushpin/pushpin.conf --merge-output
