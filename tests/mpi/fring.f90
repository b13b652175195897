! fring: the Fortran test program of the mptrace tests, with the mpi
! module (fring08.f90 is the same with mpi_f08). The ranks form a ring
! numbered backwards (a split of MPI_COMM_WORLD with reversed keys); per
! step every rank sends 256 doubles to its right neighbour with
! MPI_Sendrecv, 256 doubles to each neighbour with MPI_Isend (MPI_Irecv,
! MPI_Waitall), 8 doubles to its right with MPI_Send (MPI_Recv with
! MPI_STATUS_IGNORE), then joins an MPI_Allreduce of one double. So with
! P ranks and N steps: 4 P N messages, 3 P N of 2048 bytes and P N of 64
! bytes, N allreduces; then one barrier on MPI_COMM_WORLD.
! Usage: fring [steps]
program fring
  use mpi
  implicit none
  integer :: ierr, rank, nranks, left, right, step, nsteps, ring
  integer :: req(4), stat(MPI_STATUS_SIZE)
  double precision :: a(256), b(256), c(256), d(256), e(8), x, y
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  nsteps = 5
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) nsteps
  end if
  call MPI_Comm_split(MPI_COMM_WORLD, 0, nranks - 1 - rank, ring, ierr)
  call MPI_Comm_rank(ring, rank, ierr)
  left = mod(rank + nranks - 1, nranks)
  right = mod(rank + 1, nranks)
  a = rank
  e = rank
  y = 0
  do step = 1, nsteps
    call MPI_Sendrecv(a, 256, MPI_DOUBLE_PRECISION, right, 1, b, 256, &
                      MPI_DOUBLE_PRECISION, left, 1, ring, stat, ierr)
    call MPI_Irecv(c, 256, MPI_DOUBLE_PRECISION, left, 2, ring, req(1), ierr)
    call MPI_Irecv(d, 256, MPI_DOUBLE_PRECISION, right, 3, ring, req(2), ierr)
    call MPI_Isend(a, 256, MPI_DOUBLE_PRECISION, right, 2, ring, req(3), ierr)
    call MPI_Isend(b, 256, MPI_DOUBLE_PRECISION, left, 3, ring, req(4), ierr)
    call MPI_Waitall(4, req, MPI_STATUSES_IGNORE, ierr)
    call MPI_Send(e, 8, MPI_DOUBLE_PRECISION, right, 4, ring, ierr)
    call MPI_Recv(e, 8, MPI_DOUBLE_PRECISION, left, 4, ring, MPI_STATUS_IGNORE, ierr)
    x = c(1) + d(1)
    call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, ring, ierr)
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0)', 'fring: ranks ', nranks, ' steps ', nsteps
  call MPI_Comm_free(ring, ierr)
  call MPI_Finalize(ierr)
end program fring
