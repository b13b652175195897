# otf2count.awk: count what an OTF2 archive holds from otf2-print's
# output, independently of the program that wrote it (tests/mptrace.bats).
# Prints one line per figure, "name value":
#   sends, send_bytes, recvs, recv_bytes   point-to-point messages (MPI_SEND
#                                          and MPI_ISEND; MPI_RECV and MPI_IRECV)
#   unmatched                              sends without their receive and
#                                          receives without their send, pairing by
#                                          sender, receiver (locations, as
#                                          otf2-print maps the communicator's
#                                          ranks), communicator, tag and length
#   open_requests                          MPI_ISEND and MPI_IRECV_REQUEST
#                                          requests never completed (nor cancelled)
#   coll_OP, coll_OP_sent, coll_OP_recv    MPI_COLLECTIVE_END events by operation,
#                                          with their bytes summed
#   unbalanced                             ENTER and LEAVE that do not nest, per
#                                          location
#   backwards                              events earlier than the one before them
#                                          on their location
#   enter_REGION                           ENTER events by region
#   flushes                                BUFFER_FLUSH events
# Use: otf2-print ARCHIVE/traces.otf2 | awk -f otf2count.awk

# The number in "<N>" after the field named f ("Receiver:", "Communicator:").
function ref(f,    s, i) {
	i = index($0, f)
	if (i == 0)
		return ""
	s = substr($0, i)
	i = index(s, "<")
	s = substr(s, i + 1)
	return substr(s, 1, index(s, ">") - 1) + 0
}

# The value after "name: " up to the next comma.
function val(name,    s, i) {
	i = index($0, name ": ")
	if (i == 0)
		return ""
	s = substr($0, i + length(name) + 2)
	i = index(s, ",")
	return i ? substr(s, 1, i - 1) : s
}

$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {
	loc = $2
	if ((loc in last) && $3 + 0 < last[loc])
		backwards++
	last[loc] = $3 + 0
}

$1 == "ENTER" {
	r = val("Region")
	sub(/ <[0-9]+>$/, "", r)
	gsub(/"/, "", r)
	enter[r]++
	stack[loc, ++depth[loc]] = ref("Region:")
}

$1 == "LEAVE" {
	if (depth[loc] < 1 || stack[loc, depth[loc]] != ref("Region:"))
		unbalanced++
	else
		depth[loc]--
}

$1 == "MPI_SEND" || $1 == "MPI_ISEND" {
	sends++
	send_bytes += val("Length")
	pair[loc, ref("Receiver:"), ref("Communicator:"), val("Tag"), val("Length")]++
	if ($1 == "MPI_ISEND")
		req[loc, val("Request")] = 1
}

$1 == "MPI_RECV" || $1 == "MPI_IRECV" {
	recvs++
	recv_bytes += val("Length")
	pair[ref("Sender:"), loc, ref("Communicator:"), val("Tag"), val("Length")]--
	if ($1 == "MPI_IRECV")
		delete req[loc, val("Request")]
}

$1 == "MPI_IRECV_REQUEST" {
	req[loc, val("Request")] = 1
}

$1 == "MPI_ISEND_COMPLETE" || $1 == "MPI_REQUEST_CANCELLED" {
	delete req[loc, val("Request")]
}

$1 == "MPI_COLLECTIVE_END" {
	op = val("Operation")
	coll[op]++
	csent[op] += val("Sent")
	crecv[op] += val("Received")
}

$1 == "BUFFER_FLUSH" {
	flushes++
}

END {
	for (k in pair)
		unmatched += pair[k] < 0 ? -pair[k] : pair[k]
	for (k in req)
		open_requests++
	for (l in depth)
		unbalanced += depth[l]
	printf "sends %.0f\nsend_bytes %.0f\nrecvs %.0f\nrecv_bytes %.0f\n", sends, send_bytes, recvs, recv_bytes
	printf "unmatched %.0f\nopen_requests %.0f\nunbalanced %.0f\nbackwards %.0f\nflushes %.0f\n",
		unmatched, open_requests, unbalanced, backwards, flushes
	for (op in coll)
		printf "coll_%s %.0f\ncoll_%s_sent %.0f\ncoll_%s_recv %.0f\n", op, coll[op], op, csent[op], op, crecv[op]
	for (r in enter)
		printf "enter_%s %.0f\n", r, enter[r]
}
