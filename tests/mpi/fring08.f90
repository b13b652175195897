! fring08: fring.f90 with the mpi_f08 module (see there).
! Usage: fring08 [steps]
program fring08
  use mpi_f08
  implicit none
  integer :: rank, nranks, left, right, step, nsteps
  type(MPI_Comm) :: ring
  type(MPI_Request) :: req(4)
  type(MPI_Status) :: stat
  double precision :: a(256), b(256), c(256), d(256), e(8), x, y
  character(len=32) :: arg

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  nsteps = 5
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) nsteps
  end if
  call MPI_Comm_split(MPI_COMM_WORLD, 0, nranks - 1 - rank, ring)
  call MPI_Comm_rank(ring, rank)
  left = mod(rank + nranks - 1, nranks)
  right = mod(rank + 1, nranks)
  a = rank
  e = rank
  y = 0
  do step = 1, nsteps
    call MPI_Sendrecv(a, 256, MPI_DOUBLE_PRECISION, right, 1, b, 256, &
                      MPI_DOUBLE_PRECISION, left, 1, ring, stat)
    call MPI_Irecv(c, 256, MPI_DOUBLE_PRECISION, left, 2, ring, req(1))
    call MPI_Irecv(d, 256, MPI_DOUBLE_PRECISION, right, 3, ring, req(2))
    call MPI_Isend(a, 256, MPI_DOUBLE_PRECISION, right, 2, ring, req(3))
    call MPI_Isend(b, 256, MPI_DOUBLE_PRECISION, left, 3, ring, req(4))
    call MPI_Waitall(4, req, MPI_STATUSES_IGNORE)
    call MPI_Send(e, 8, MPI_DOUBLE_PRECISION, right, 4, ring)
    call MPI_Recv(e, 8, MPI_DOUBLE_PRECISION, left, 4, ring, MPI_STATUS_IGNORE)
    x = c(1) + d(1)
    call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, ring)
  end do
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a,i0)', 'fring: ranks ', nranks, ' steps ', nsteps
  call MPI_Comm_free(ring)
  call MPI_Finalize()
end program fring08
