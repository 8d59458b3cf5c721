#!/usr/bin/env bash
# serve: start the demo server
port=8080
if [ "$1" = "--quiet" ]; then
  exec > /dev/null
fi
echo "listening on $port"
