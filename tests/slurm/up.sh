#!/bin/sh
# Bring up a private single-node Slurm cluster for the tests, without
# systemd: munged (as the munge user), slurmctld and slurmd (as root), with
# their configuration, sockets, state, logs and PID files all under DIR.
#
#   tests/slurm/up.sh DIR       DIR: an empty directory; needs root
#   export SLURM_CONF=DIR/slurm.conf   then sbatch, squeue, sinfo use it
#   tests/slurm/down.sh DIR     stops it again, by PID
#
# Exits 0 once the node is idle; otherwise prints why on stderr (with the
# end of the daemons' logs) and exits 1, leaving DIR for down.sh.
# Ports are chosen free at random, so two test runs can coexist.
set -u
dir=${1:?usage: up.sh DIR}
fail() {
	echo "up.sh: $*" >&2
	for l in "$dir"/munge/munged.log "$dir"/slurmctld.log "$dir"/slurmd.log; do
		[ -s "$l" ] && { echo "--- $l" >&2; tail -n 15 "$l" >&2; }
	done
	exit 1
}
[ "$(id -u)" = 0 ] || fail "needs root"
for p in munged slurmctld slurmd sinfo; do
	command -v $p >/dev/null 2>&1 || [ -x /usr/sbin/$p ] || fail "$p not installed"
done
PATH=$PATH:/usr/sbin
id munge >/dev/null 2>&1 || fail "no munge user"
dir=$(cd "$dir" && pwd) || fail "$1: no such directory"
chmod 755 "$dir"
runuser -u munge -- test -x "$dir" ||
	fail "$dir: the munge user cannot reach it (a parent directory is not searchable)"

# munge: its own key, socket and state, owned by the munge user.
mkdir -p "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null ||
	fail "cannot write the munge key"
chown -R munge:munge "$dir/munge"
chmod 711 "$dir/munge"
chmod 400 "$dir/munge/munge.key"
runuser -u munge -- munged \
	--socket "$dir/munge/munge.socket" \
	--key-file "$dir/munge/munge.key" \
	--pid-file "$dir/munge/munged.pid" \
	--log-file "$dir/munge/munged.log" \
	--seed-file "$dir/munge/munged.seed" ||
	fail "munged did not start"

# Two free TCP ports for slurmctld and slurmd.
in_use=$(ss -Htan 2>/dev/null | awk '{ n = split($4, a, ":"); print a[n] }')
free_port() {
	while :; do
		p=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000 ))
		echo "$in_use" | grep -qx "$p" || { in_use="$in_use
$p"; echo "$p"; return; }
	done
}
ctld_port=$(free_port)
slurmd_port=$(free_port)

# The node as slurmd sees it (name, CPUs), so the configuration fits.
node=$(slurmd -C 2>/dev/null | sed -n 's/^NodeName=\([^ ]*\).*/\1/p')
cpus=$(slurmd -C 2>/dev/null | sed -n 's/.* CPUs=\([0-9]*\).*/\1/p')
[ -n "$node" ] || node=$(hostname -s)
[ -n "$cpus" ] || cpus=1
mkdir -p "$dir/state" "$dir/spool"
cat > "$dir/slurm.conf" <<CONF
# A private single-node cluster for meshpipe's tests (tests/slurm/up.sh).
ClusterName=meshpipe-test
SlurmctldHost=$node
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=$node CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"

# Wait (up to 30 s) for the node to be idle.
i=0
while [ $i -lt 60 ]; do
	state=$(sinfo -h -n "$node" -o %t 2>/dev/null)
	case $state in idle*) exit 0 ;; esac
	sleep 0.5
	i=$((i + 1))
done
fail "node $node not idle after 30 s (state: ${state:-none})"
