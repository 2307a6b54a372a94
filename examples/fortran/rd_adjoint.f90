! The reaction-diffusion adjoint driven by ebb from Fortran: the two bind(c)
! callbacks ebb calls and rd_gradient, which computes J, dJ/du_0 and dJ/dr
! through one ebb run (examples/reaction_diffusion/adjoint.c in Fortran).
module rd_adjoint
  use, intrinsic :: iso_c_binding
  use ebb
  use rd_model
  implicit none
  private
  public :: rd_state, rd_gradient

  ! What the callbacks share; ebb hands its address to them as `user`.
  type :: rd_state
     type(rd_params) :: p
     real(dp), allocatable :: target(:)
     real(dp), allocatable :: lambda(:)  ! lambda_i; dJ/du_0 at the end
     real(dp), allocatable :: scratch(:) ! lambda_{i+1} while step i is reversed
     real(dp) :: objective = 0, grad_r = 0      ! J, dJ/dr
     integer(i8) :: seen = 0          ! first-sweep steps so far (their terms are in J)
     integer(i8) :: next_reverse = 0  ! the reverse step expected next
     logical :: unknown_steps = .false.
     character(len=32) :: strategy = ''
     type(ebb_run_stats) :: stats
  end type rd_state

contains

  ! x_i -> x_{i+1}. ebb calls it again for the states it recomputes; their
  ! running terms are already in J (step < seen).
  integer(c_int) function forward_cb(user, step, in, out) bind(c)
    type(c_ptr), value :: user, in, out
    integer(c_int64_t), value :: step
    type(rd_state), pointer :: a
    real(dp), pointer :: u(:), v(:)
    logical :: first_time
    call c_f_pointer(user, a)
    call c_f_pointer(in, u, [a%p%points])
    call c_f_pointer(out, v, [a%p%points])
    first_time = step == a%seen
    if (first_time) then
       a%objective = a%objective + rd_running_cost(a%p, u)
       a%seen = a%seen + 1
    end if
    call rd_step(a%p, u, v)
    forward_cb = EBB_STEP_OK
    ! A code that learns n as it runs says "that was the last step" so.
    if (a%unknown_steps .and. first_time .and. step == a%p%steps - 1) forward_cb = EBB_STEP_LAST
  end function forward_cb

  ! The adjoint of step i; `state` holds u_i. ebb calls it for i = n-1 .. 0.
  integer(c_int) function reverse_cb(user, step, state) bind(c)
    type(c_ptr), value :: user, state
    integer(c_int64_t), value :: step
    type(rd_state), pointer :: a
    real(dp), pointer :: u(:)
    real(dp), allocatable :: next(:)
    character(len=96) :: msg
    call c_f_pointer(user, a)
    if (step /= a%next_reverse) then
       write (msg, '(a,i0,a,i0,a)') 'reverse step ', step, ' came when step ', &
            a%next_reverse, ' was expected'
       reverse_cb = ebb_callback_fail(msg)
       return
    end if
    call c_f_pointer(state, u, [a%p%points])
    ! Swap the two buffers (no copy): next = lambda_{i+1}, lambda = lambda_i.
    call move_alloc(a%lambda, next)
    call move_alloc(a%scratch, a%lambda)
    call rd_adjoint_step(a%p, u, next, a%lambda, a%grad_r)
    call move_alloc(next, a%scratch)
    a%next_reverse = a%next_reverse - 1
    reverse_cb = EBB_STEP_OK
  end function reverse_cb

  ! J, dJ/du_0 (a%lambda) and dJ/dr (a%grad_r) through one run. `base`
  ! holds the caller's choices (config, strategy, slots); the state, the
  ! steps and the callbacks are set here. The online strategy runs with n
  ! unknown. Returns EBB_OK or the failing call's status (ebb_last_error()).
  integer(c_int) function rd_gradient(a, u0, base) result(status)
    type(rd_state), intent(inout), target :: a
    real(dp), intent(in), target :: u0(:)
    type(ebb_run_options), intent(in) :: base
    type(ebb_run_options) :: o
    type(c_ptr) :: run, xn
    real(dp), pointer :: un(:)
    integer(c_int) :: strategy

    if (.not. allocated(a%lambda)) allocate (a%lambda(a%p%points), a%scratch(a%p%points))
    o = base
    o%state_size = int(a%p%points, c_size_t) * c_sizeof(0.0_dp)
    o%state_tier = EBB_TIER_HOST
    o%forward = c_funloc(forward_cb)
    o%forward_inplace = c_null_funptr
    o%reverse = c_funloc(reverse_cb)
    o%user = c_loc(a)
    strategy = o%strategy
    if (strategy == EBB_RUN_FROM_CONFIG) then
       strategy = EBB_CONFIG_STRATEGY_AUTO
       if (c_associated(o%config)) strategy = ebb_config_strategy(o%config)
    end if
    a%unknown_steps = strategy == EBB_CONFIG_STRATEGY_ONLINE
    o%steps = a%p%steps
    if (a%unknown_steps) o%steps = 0
    a%objective = 0
    a%grad_r = 0
    a%seen = 0

    run = c_null_ptr
    status = ebb_run_create(o, run)
    if (status == EBB_OK) status = ebb_run_forward(run, c_loc(u0), xn)
    if (status == EBB_OK) then
       ! x_n is ebb's buffer until the reverse sweep starts.
       call c_f_pointer(xn, un, [a%p%points])
       a%objective = a%objective + rd_final_cost(a%p, a%target, un)
       call rd_final_adjoint(a%p, a%target, un, a%lambda)
       a%next_reverse = a%seen - 1
       status = ebb_run_reverse(run)
    end if
    if (status == EBB_OK) then
       a%strategy = ebb_run_strategy_name(run)
       status = ebb_run_stats_get(run, a%stats)
    end if
    call ebb_run_destroy(run)
  end function rd_gradient

end module rd_adjoint
