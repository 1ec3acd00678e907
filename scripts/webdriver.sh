# shellcheck shell=bash
# Sourced by scripts/app-e2e.sh and scripts/deb-e2e.sh: a virtual display (Xvfb, unless $DISPLAY
# is set) and tauri-driver (→ WebKitWebDriver) for the WebDriver tests, and their teardown.
#
#   webdriver_start PREFIX   starts both (logs: $artifacts/PREFIXxvfb.log, PREFIXtauri-driver.log),
#                            exports DISPLAY and FORKHOST_WEBDRIVER_URL
#   webdriver_stop           ends them; call it from the caller's EXIT trap
#
# The caller defines `log` and `artifacts`. tauri-driver runs in a session of its own, so its
# process group also holds WebKitWebDriver and any app it launched: that group is ended too.

webdriver_pids=()
webdriver_pgid=""

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

webdriver_stop() {
  local pid
  if [[ -n "$webdriver_pgid" ]]; then
    kill -TERM "$webdriver_pgid" 2>/dev/null || true
    sleep 0.5
    kill -TERM -- "-$webdriver_pgid" 2>/dev/null || true
  fi
  for pid in "${webdriver_pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${webdriver_pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
}

webdriver_start() {
  local prefix="$1" display="" n
  if [[ -z "${DISPLAY:-}" ]]; then
    command -v Xvfb >/dev/null || { log "missing Xvfb (apt-get install xvfb xauth)"; exit 2; }
    for n in $(seq 90 190); do
      if [[ ! -e "/tmp/.X$n-lock" && ! -e "/tmp/.X11-unix/X$n" ]]; then display=$n; break; fi
    done
    [[ -n "$display" ]] || { log "no free X display number"; exit 2; }
    log "starting Xvfb :$display"
    Xvfb ":$display" -screen 0 1280x800x24 -nolisten tcp >"$artifacts/${prefix}xvfb.log" 2>&1 &
    webdriver_pids+=("$!")
    export DISPLAY=":$display"
    for _ in $(seq 100); do
      [[ -e "/tmp/.X11-unix/X$display" ]] && break
      kill -0 "${webdriver_pids[-1]}" 2>/dev/null ||
        { log "Xvfb exited; see $artifacts/${prefix}xvfb.log"; exit 2; }
      sleep 0.1
    done
  fi

  local driver_port native_port
  driver_port="$(free_port)"
  native_port="$(free_port)"
  log "starting tauri-driver on port $driver_port (WebKitWebDriver on $native_port), DISPLAY=$DISPLAY"
  setsid tauri-driver --port "$driver_port" --native-port "$native_port" \
    >"$artifacts/${prefix}tauri-driver.log" 2>&1 &
  webdriver_pids+=("$!")
  webdriver_pgid="$!"
  for _ in $(seq 100); do
    port_open "$driver_port" && break
    kill -0 "${webdriver_pids[-1]}" 2>/dev/null ||
      { log "tauri-driver exited; see $artifacts/${prefix}tauri-driver.log"; exit 2; }
    sleep 0.1
  done
  port_open "$driver_port" || { log "tauri-driver did not listen on $driver_port"; exit 2; }
  export FORKHOST_WEBDRIVER_URL="http://127.0.0.1:$driver_port"
}
