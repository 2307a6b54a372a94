! example_fortran_reaction_diffusion: the reaction-diffusion adjoint of
! examples/reaction_diffusion/ in Fortran (rd_model.f90, rd_adjoint.f90),
! with ebb keeping the states in a host budget of 4 states and on disk, and
! the gradient checked against central differences of the plain loop.
!
!   example_fortran_reaction_diffusion [--points N] [--steps n] [--strategy S]
!                                      [--config FILE] [--no-check]
!
! Exit status 0 when J is the plain loop's to the bit and both gradient
! checks pass (relative error <= 1e-6); 1 otherwise; 2 for a bad command line.
program example_fortran_reaction_diffusion
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  use ebb
  use rd_model
  use rd_adjoint
  implicit none

  integer, parameter :: host_states = 4, disk_states = 32
  real(dp), parameter :: check_eps = 1.0e-6_dp, check_bound = 1.0e-6_dp
  integer(i8) :: points = 1048576, steps = 200
  character(len=:), allocatable :: strategy, config_path
  logical :: check = .true., ok
  type(rd_state), target :: a
  type(ebb_run_options) :: o
  type(c_ptr) :: cfg
  real(dp), allocatable, target :: u0(:)
  real(dp) :: j_plain, err
  integer(c_int) :: status

  strategy = ''
  config_path = ''
  call parse_args()
  a%p = rd_params_default(points, steps)
  allocate (u0(points), a%target(points))
  call rd_initial(a%p, u0)
  call rd_target(a%p, a%target)

  call make_config(int(points, c_size_t) * 8_c_size_t)
  call ebb_run_options_init(o)
  o%config = cfg
  status = rd_gradient(a, u0, o)
  if (status /= EBB_OK) call fail('')

  j_plain = rd_objective(a%p, a%target, u0)
  ok = same_bits(j_plain, a%objective)
  print '(a,a,a,i0,a,i0,a,a)', 'Fortran reaction-diffusion adjoint, ebb ', ebb_version(), ': ', &
       points, ' points, ', steps, ' steps, strategy ', trim(a%strategy)
  print '(a,es24.16e3,a)', 'objective J = ', a%objective, merge(' (the plain loop gives the same bits)', &
       ' (the plain loop DIFFERS)            ', ok)
  print '(a,es24.16e3)', 'dJ/dr = ', a%grad_r
  print '(a,i0,a,i0,a,i0)', 'forward steps ', a%stats%forward_steps, ' (recomputed ', &
       a%stats%recomputed_steps, '), reverse steps ', a%stats%reverse_steps
  if (check) then
     err = gradient_check()
     ok = ok .and. err <= check_bound
  end if
  call ebb_config_destroy(cfg)
  ! the main program's allocations are not freed at its end: LeakSanitizer
  ! (the asan build's tests) counts them as leaks
  deallocate (u0, a%target, strategy, config_path)
  if (.not. ok) then
     print '(a)', 'FAILED'
     stop 1, quiet=.true.
  end if
  print '(a)', 'ok'

contains

  subroutine parse_args()
    integer :: i, n, ios
    character(len=4096) :: arg, val
    i = 1
    n = command_argument_count()
    do while (i <= n)
       call get_command_argument(i, arg)
       val = ''
       if (arg == '--no-check') then
          check = .false.
          i = i + 1
          cycle
       end if
       if (i < n) call get_command_argument(i + 1, val)
       select case (trim(arg))
       case ('--points')
          read (val, *, iostat=ios) points
          if (ios /= 0 .or. points < 3) call usage()
       case ('--steps')
          read (val, *, iostat=ios) steps
          if (ios /= 0 .or. steps < 1) call usage()
       case ('--strategy')
          strategy = trim(val)
       case ('--config')
          config_path = trim(val)
       case default
          call usage()
       end select
       if (i == n) call usage()
       i = i + 2
    end do
  end subroutine parse_args

  subroutine usage()
    write (error_unit, '(a)') 'usage: example_fortran_reaction_diffusion [--points N] [--steps n]'// &
         ' [--strategy S] [--config FILE] [--no-check]'
    stop 2, quiet=.true.
  end subroutine usage

  subroutine fail(what)
    character(len=*), intent(in) :: what
    write (error_unit, '(a,a,a)') 'ebb: ', what, ebb_last_error()
    stop 1, quiet=.true.
  end subroutine fail

  ! The embedded default, the file, then the example's budgets and strategy
  ! for the keys the file left alone, then --strategy (as the C example).
  subroutine make_config(state)
    integer(c_size_t), intent(in) :: state
    character(len=*), parameter :: nl = new_line('a')
    character(len=256) :: toml
    integer(c_int64_t) :: disk_bytes
    integer(c_int) :: s
    if (ebb_config_create(cfg) /= EBB_OK) call fail('')
    if (len(config_path) > 0) then
       if (ebb_config_load_file(config_path, cfg) /= EBB_OK) call fail('')
    end if
    if (.not. ebb_config_key_set(cfg, EBB_KEY_HOST_BUDGET)) then
       write (toml, '(a,i0)') '[tier.host]'//nl//'budget = ', host_states * round_up(state, 4096_c_size_t)
       if (ebb_config_load_string(toml, cfg) /= EBB_OK) call fail('')
    end if
    if (ebb_config_budget(cfg, EBB_TIER_DISK, disk_bytes) /= EBB_OK) call fail('')
    if (disk_bytes > 0) then ! 0: the disk tier is disabled
       if (.not. ebb_config_key_set(cfg, EBB_KEY_DISK_BUDGET)) then
          write (toml, '(a,i0)') '[tier.disk]'//nl//'budget = ', disk_states * round_up(state, 4096_c_size_t)
          if (ebb_config_load_string(toml, cfg) /= EBB_OK) call fail('')
       end if
    end if
    if (.not. ebb_config_key_set(cfg, EBB_KEY_RUN_STRATEGY)) then
       toml = '[run]'//nl//'strategy = "revolve"'
       if (disk_bytes > 0) toml = '[run]'//nl//'strategy = "multistage"'
       if (ebb_config_load_string(toml, cfg) /= EBB_OK) call fail('')
    end if
    if (len(strategy) > 0) then
       if (ebb_config_strategy_from_name(strategy, s) /= EBB_OK) call fail('--strategy: ')
       if (ebb_config_load_string('[run]'//nl//'strategy = "'//strategy//'"', cfg) /= EBB_OK) &
            call fail('')
    end if
    if (ebb_config_check(cfg, state) /= EBB_OK) call fail('')
  end subroutine make_config

  ! Page-size rounding of host slots is 4 KiB on the machines ebb runs on.
  integer(c_size_t) function round_up(v, to)
    integer(c_size_t), intent(in) :: v, to
    round_up = (v + to - 1) / to * to
  end function round_up

  logical function same_bits(x, y)
    real(dp), intent(in) :: x, y
    same_bits = transfer(x, 0_i8) == transfer(y, 0_i8)
  end function same_bits

  real(dp) function relative_error(x, y)
    real(dp), intent(in) :: x, y
    relative_error = 0
    if (max(abs(x), abs(y)) > 0) relative_error = abs(x - y) / max(abs(x), abs(y))
  end function relative_error

  ! dJ/du0 . d and dJ/dr against central differences of the plain loop.
  real(dp) function gradient_check() result(worst)
    real(dp), allocatable :: d(:), u(:)
    real(dp) :: adjoint_u, plus, minus, fd_u, fd_r, err_u, err_r
    type(rd_params) :: q
    allocate (d(points), u(points))
    call rd_direction(a%p, 42_i8, d)
    adjoint_u = rd_dot(a%p, a%lambda, d)
    u = u0 + check_eps * d
    plus = rd_objective(a%p, a%target, u)
    u = u0 - check_eps * d
    minus = rd_objective(a%p, a%target, u)
    fd_u = (plus - minus) / (2.0_dp * check_eps)
    q = a%p
    q%r = a%p%r + check_eps
    plus = rd_objective(q, a%target, u0)
    q%r = a%p%r - check_eps
    minus = rd_objective(q, a%target, u0)
    fd_r = (plus - minus) / (2.0_dp * check_eps)
    err_u = relative_error(adjoint_u, fd_u)
    err_r = relative_error(a%grad_r, fd_r)
    print '(a,es14.6,a,es14.6,a,es9.1)', 'gradient check dJ/du0.d: adjoint', adjoint_u, &
         ', finite differences', fd_u, ', relative error', err_u
    print '(a,es14.6,a,es14.6,a,es9.1)', 'gradient check dJ/dr:    adjoint', a%grad_r, &
         ', finite differences', fd_r, ', relative error', err_r
    worst = max(err_u, err_r)
  end function gradient_check

end program example_fortran_reaction_diffusion
