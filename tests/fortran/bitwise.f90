! The Fortran binding (bindings/fortran) and example (examples/fortran):
!  - the mirrored ebb_run_options and ebb_run_stats have the C layout, and
!    the EBB_KEY_* constants the C values;
!  - over random (n, slots) and every strategy, the Fortran example's J,
!    dJ/dr and every entry of dJ/du0 are bitwise the C example's;
!  - ebb's errors come back as the status and ebb_last_error()'s message,
!    and a Fortran callback's ebb_callback_fail message is ebb's report.
! Prints what it checks; stops with 1 at the first failure.
program fortran_binding_test
  use, intrinsic :: iso_c_binding
  use ebb
  use rd_model
  use rd_adjoint
  implicit none

  interface
     integer(c_int) function rdtest_c_gradient(points, steps, base, lambda, grad_r, objective) bind(c)
       import :: c_int, c_int64_t, c_double, ebb_run_options
       integer(c_int64_t), value :: points, steps
       type(ebb_run_options), intent(in) :: base
       real(c_double), intent(out) :: lambda(*), grad_r, objective
     end function rdtest_c_gradient
     integer(c_size_t) function rdtest_run_options_layout(offsets) bind(c)
       import :: c_size_t
       integer(c_size_t), intent(out) :: offsets(*)
     end function rdtest_run_options_layout
     integer(c_size_t) function rdtest_run_stats_layout(offsets) bind(c)
       import :: c_size_t
       integer(c_size_t), intent(out) :: offsets(*)
     end function rdtest_run_stats_layout
     integer(c_size_t) function rdtest_config_keys(keys) bind(c)
       import :: c_size_t, c_int
       integer(c_int), intent(out) :: keys(*)
     end function rdtest_config_keys
  end interface

  call check_layout()
  call check_keys()
  call check_gradients()
  call check_errors()
  print '(a)', 'fortran binding: all checks passed'

contains

  subroutine require(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
       print '(a,a)', 'FAILED: ', what
       print '(a,a)', '  ebb_last_error: ', ebb_last_error()
       stop 1
    end if
  end subroutine require

  integer(c_size_t) function off(base, field)
    type(c_ptr), intent(in) :: base, field
    off = int(transfer(field, 0_c_intptr_t) - transfer(base, 0_c_intptr_t), c_size_t)
  end function off

  subroutine check_layout()
    type(ebb_run_options), target :: o
    type(ebb_run_stats), target :: s
    integer(c_size_t) :: c_off(40), f_off(40), size
    type(c_ptr) :: b
    integer :: i
    character(len=64) :: what
    size = rdtest_run_options_layout(c_off)
    b = c_loc(o)
    f_off(1:30) = [off(b, c_loc(o%state_size)), off(b, c_loc(o%state_tier)), off(b, c_loc(o%device)), &
         off(b, c_loc(o%stream)), off(b, c_loc(o%forward)), off(b, c_loc(o%forward_inplace)), &
         off(b, c_loc(o%reverse)), off(b, c_loc(o%user)), off(b, c_loc(o%steps)), &
         off(b, c_loc(o%config)), off(b, c_loc(o%strategy)), off(b, c_loc(o%fast_tier)), &
         off(b, c_loc(o%slow_tier)), off(b, c_loc(o%slots)), off(b, c_loc(o%slow_slots)), &
         off(b, c_loc(o%period)), off(b, c_loc(o%io_ratio)), off(b, c_loc(o%audit)), &
         off(b, c_loc(o%staging)), off(b, c_loc(o%trace)), off(b, c_loc(o%forward_seconds)), &
         off(b, c_loc(o%reverse_seconds)), off(b, c_loc(o%element)), off(b, c_loc(o%dims)), &
         off(b, c_loc(o%shape)), off(b, c_loc(o%error_samples)), &
         off(b, c_loc(o%forward_costs)), off(b, c_loc(o%reverse_costs)), &
         off(b, c_loc(o%measure_costs)), off(b, c_loc(o%state_sizes))]
    call require(size == c_sizeof(o), 'sizeof(ebb_run_options) differs from the C compiler''s')
    do i = 1, 30
       write (what, '(a,i0,a)') 'ebb_run_options field ', i, ' is not where C puts it'
       call require(f_off(i) == c_off(i), trim(what))
    end do
    size = rdtest_run_stats_layout(c_off)
    b = c_loc(s)
    f_off(1:40) = [off(b, c_loc(s%steps)), off(b, c_loc(s%forward_steps)), &
         off(b, c_loc(s%recomputed_steps)), off(b, c_loc(s%reverse_steps)), off(b, c_loc(s%stores)), &
         off(b, c_loc(s%restores)), off(b, c_loc(s%copies)), off(b, c_loc(s%prefetches)), &
         off(b, c_loc(s%cache_hits)), off(b, c_loc(s%bytes_written)), off(b, c_loc(s%bytes_read)), &
         off(b, c_loc(s%peak_slots)), off(b, c_loc(s%stall_s)), off(b, c_loc(s%stall_total_s)), &
         off(b, c_loc(s%forward_callback_s)), off(b, c_loc(s%reverse_callback_s)), &
         off(b, c_loc(s%copy_s)), off(b, c_loc(s%forward_sweep_s)), off(b, c_loc(s%reverse_sweep_s)), &
         off(b, c_loc(s%wall_s)), off(b, c_loc(s%bytes_before_compression)), &
         off(b, c_loc(s%bytes_after_compression)), off(b, c_loc(s%stored_raw)), &
         off(b, c_loc(s%codec_s)), off(b, c_loc(s%stored_raw_slower)), &
         off(b, c_loc(s%codec_ratio)), off(b, c_loc(s%compress_bps)), &
         off(b, c_loc(s%decompress_bps)), off(b, c_loc(s%bytes_before_compression_tier)), &
         off(b, c_loc(s%bytes_after_compression_tier)), off(b, c_loc(s%codec_s_tier)), &
         off(b, c_loc(s%compressions)), off(b, c_loc(s%decompressions)), &
         off(b, c_loc(s%host_compress_bps)), off(b, c_loc(s%host_decompress_bps)), &
         off(b, c_loc(s%error_samples)), off(b, c_loc(s%error_samples_differ)), &
         off(b, c_loc(s%state_rel_error_max)), off(b, c_loc(s%state_rel_error_rms)), &
         off(b, c_loc(s%gradient_rel_error_estimate))]
    call require(size == c_sizeof(s), 'sizeof(ebb_run_stats) differs from the C compiler''s')
    do i = 1, 40
       write (what, '(a,i0,a)') 'ebb_run_stats field ', i, ' is not where C puts it'
       call require(f_off(i) == c_off(i), trim(what))
    end do
    print '(a)', 'layout of ebb_run_options and ebb_run_stats: as in C'
  end subroutine check_layout

  subroutine check_keys()
    integer(c_int) :: c_keys(32), f_keys(16)
    integer :: i
    character(len=64) :: what
    f_keys = [EBB_KEY_RUN_STRATEGY, EBB_KEY_RUN_AUDIT, EBB_KEY_RUN_ERROR_SAMPLES, EBB_KEY_GPU_ENABLED, EBB_KEY_GPU_BUDGET, &
         EBB_KEY_GPU_DEVICE, EBB_KEY_GPU_CHUNK_SIZE, EBB_KEY_HOST_ENABLED, EBB_KEY_HOST_BUDGET, &
         EBB_KEY_HOST_NUMA, EBB_KEY_HOST_PIN, EBB_KEY_HOST_PREFAULT, EBB_KEY_HOST_STAGING, &
         EBB_KEY_DISK_ENABLED, EBB_KEY_DISK_PATH, EBB_KEY_DISK_BUDGET]
    call require(rdtest_config_keys(c_keys) == size(f_keys, kind=c_size_t), &
         'the C side lists another number of EBB_KEY_* constants')
    do i = 1, size(f_keys)
       write (what, '(a,i0,a)') 'EBB_KEY_* constant ', i, ' differs from the C value'
       call require(f_keys(i) == c_keys(i), trim(what))
    end do
    print '(a)', 'EBB_KEY_* constants: as in C'
  end subroutine check_keys

  ! A small reproducible generator for the cases (splitmix-free LCG).
  integer(i8) function next(state, bound)
    integer(i8), intent(inout) :: state
    integer(i8), intent(in) :: bound
    state = state * 6364136223846793005_i8 + 1442695040888963407_i8
    next = modulo(shiftr(state, 33), bound)
  end function next

  subroutine check_gradients()
    integer(c_int), parameter :: strategies(6) = [EBB_CONFIG_STRATEGY_STORE_ALL, &
         EBB_CONFIG_STRATEGY_PERIODIC, EBB_CONFIG_STRATEGY_REVOLVE, EBB_CONFIG_STRATEGY_ONLINE, &
         EBB_CONFIG_STRATEGY_MULTISTAGE, EBB_CONFIG_STRATEGY_DISK_REVOLVE]
    character(len=*), parameter :: nl = new_line('a')
    type(rd_state), target :: a
    type(ebb_run_options) :: o
    type(c_ptr) :: cfg
    real(dp), allocatable, target :: u0(:)
    real(dp), allocatable :: c_lambda(:)
    real(dp) :: c_grad_r, c_objective
    integer(i8) :: rng, n, points, state
    integer(c_int) :: strategy, slots, status
    integer :: trial
    character(len=256) :: toml, what
    rng = 2026_i8
    do trial = 1, 24
       n = 1 + next(rng, 80_i8)
       points = 64 + next(rng, 200_i8)
       strategy = strategies(mod(trial - 1, 6) + 1)
       slots = int(1 + next(rng, 6_i8), c_int)
       if (strategy == EBB_CONFIG_STRATEGY_STORE_ALL .or. strategy == EBB_CONFIG_STRATEGY_PERIODIC) &
            slots = int(n, c_int)
       state = (points * 8 + 4095) / 4096 * 4096
       call require(ebb_config_create(cfg) == EBB_OK, 'ebb_config_create')
       write (toml, '(a,i0,a,i0)') '[tier.gpu]'//nl//'enabled = false'//nl//'[tier.host]'//nl// &
            'budget = ', slots * state, nl//'[tier.disk]'//nl//'budget = ', (n + 1) * state
       call require(ebb_config_load_string(toml, cfg, 'budgets') == EBB_OK, 'budgets: '//trim(toml))

       call ebb_run_options_init(o)
       o%config = cfg
       o%strategy = strategy
       o%slots = slots
       if (strategy == EBB_CONFIG_STRATEGY_MULTISTAGE .or. strategy == EBB_CONFIG_STRATEGY_DISK_REVOLVE) &
            o%slow_slots = int(n, c_int32_t)

       a%p = rd_params_default(points, n)
       if (allocated(a%lambda)) deallocate (a%lambda, a%scratch)
       if (allocated(u0)) deallocate (u0, a%target, c_lambda)
       allocate (u0(points), a%target(points), c_lambda(points))
       call rd_initial(a%p, u0)
       call rd_target(a%p, a%target)
       status = rd_gradient(a, u0, o)
       write (what, '(a,i0,a,a,a,i0,a,i0,a,i0)') 'trial ', trial, ' (', ebb_config_strategy_name(strategy), &
            ', n ', n, ', N ', points, ', slots ', slots
       call require(status == EBB_OK, trim(what)//'): the Fortran run failed')
       call require(a%stats%reverse_steps == n, trim(what)//'): reverse steps')
       status = rdtest_c_gradient(points, n, o, c_lambda, c_grad_r, c_objective)
       call require(status == EBB_OK, trim(what)//'): the C run failed')
       call require(transfer(a%objective, 0_i8) == transfer(c_objective, 0_i8), trim(what)//'): J differs')
       call require(transfer(a%grad_r, 0_i8) == transfer(c_grad_r, 0_i8), trim(what)//'): dJ/dr differs')
       call require(all(transfer(a%lambda, [0_i8]) == transfer(c_lambda, [0_i8])), &
            trim(what)//'): dJ/du0 differs')
       call ebb_config_destroy(cfg)
    end do
    print '(a)', 'gradients: 24 random cases over 6 strategies bitwise equal to the C example''s'
  end subroutine check_gradients

  integer(c_int) function forward_ok(user, step, in, out) bind(c)
    type(c_ptr), value :: user, in, out
    integer(c_int64_t), value :: step
    integer(c_int8_t), pointer :: x(:), y(:)
    call c_f_pointer(in, x, [64])
    call c_f_pointer(out, y, [64])
    y = x
    forward_ok = EBB_STEP_OK
    if (c_associated(user) .and. step < 0) forward_ok = EBB_STEP_LAST
  end function forward_ok

  integer(c_int) function reverse_fails(user, step, state) bind(c)
    type(c_ptr), value :: user, state
    integer(c_int64_t), value :: step
    character(len=40) :: msg
    reverse_fails = EBB_STEP_OK
    if (c_associated(user) .and. c_associated(state) .and. step == 3) then
       write (msg, '(a,i0)') 'the Fortran adjoint refuses step ', step
       reverse_fails = ebb_callback_fail(msg)
    end if
  end function reverse_fails

  subroutine check_errors()
    type(c_ptr) :: cfg, run, xn
    type(ebb_run_options) :: o
    integer(c_int8_t), target :: x0(64), marker
    integer(c_int) :: status
    character(len=:), allocatable :: msg
    call require(ebb_config_create(cfg) == EBB_OK, 'ebb_config_create')
    status = ebb_config_load_string('[tier.host]'//new_line('a')//'budgte = "1 GiB"', cfg, 'mine.toml')
    msg = ebb_last_error()
    call require(status == EBB_ERR_CONFIG, 'an unknown key gives EBB_ERR_CONFIG')
    call require(ebb_status_name(status) == 'EBB_ERR_CONFIG', 'ebb_status_name')
    call require(index(msg, 'mine.toml') > 0 .and. index(msg, 'budget') > 0, &
         'the message names the file and the key: '//msg)

    call ebb_run_options_init(o)
    o%state_size = 64
    o%steps = 10
    o%forward = c_funloc(forward_ok)
    o%reverse = c_funloc(reverse_fails)
    o%user = c_loc(marker)
    o%config = cfg
    o%strategy = EBB_CONFIG_STRATEGY_REVOLVE
    o%slots = 3
    x0 = 7
    call require(ebb_run_create(o, run) == EBB_OK, 'ebb_run_create')
    call require(ebb_run_forward(run, c_loc(x0), xn) == EBB_OK, 'ebb_run_forward')
    status = ebb_run_reverse(run)
    msg = ebb_last_error()
    call require(status == EBB_ERR_CALLBACK, 'a failing Fortran callback gives EBB_ERR_CALLBACK')
    call require(index(msg, 'reverse step 3 failed') > 0 .and. &
         index(msg, 'the Fortran adjoint refuses step 3') > 0, 'the callback''s message: '//msg)
    call require(ebb_run_reverse(run) == EBB_ERR_STATE, 'a failed run refuses more work')
    call ebb_run_destroy(run)

    o%state_size = 0
    call require(ebb_run_create(o, run) == EBB_ERR_INVALID_ARG, 'state_size 0 is refused')
    call require(index(ebb_last_error(), 'state_size') > 0, 'the message names state_size: '//ebb_last_error())
    call ebb_config_destroy(cfg)
    call require(.not. c_associated(cfg), 'ebb_config_destroy nulls the pointer')
    print '(a)', 'errors: statuses and messages as ebb reports them'
  end subroutine check_errors

end program fortran_binding_test
