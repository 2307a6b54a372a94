! ebb for Fortran: `use ebb` gives the runtime (ebb drives your forward and
! adjoint steps) and the configuration, over ebb's C API through
! iso_c_binding. docs/fortran.md is the guide.
!
! Callbacks are bind(c) procedures passed with c_funloc; they reach the
! program's data through the `user` pointer (c_loc of a target):
!
!   integer(c_int) function forward(user, step, in, out) bind(c)
!     type(c_ptr), value :: user, in, out
!     integer(c_int64_t), value :: step
!   integer(c_int) function reverse(user, step, state) bind(c)
!     type(c_ptr), value :: user, state
!     integer(c_int64_t), value :: step
!
! Every function returns an ebb status (EBB_OK = 0); ebb_last_error() says
! what went wrong. A configuration is an opaque type(c_ptr) made by
! ebb_config_create: its values change through TOML text
! (ebb_config_load_string), so this module never mirrors the C struct.
module ebb
  use, intrinsic :: iso_c_binding
  implicit none
  private

  ! ---- statuses (ebb/error.h) --------------------------------------------
  integer(c_int), parameter, public :: EBB_OK = 0, EBB_ERR_INVALID_ARG = 1, &
       EBB_ERR_NO_MEMORY = 2, EBB_ERR_IO = 3, EBB_ERR_NO_SPACE = 4, EBB_ERR_CONFIG = 5, &
       EBB_ERR_UNSUPPORTED = 6, EBB_ERR_CALLBACK = 7, EBB_ERR_CHECKSUM = 8, &
       EBB_ERR_SCHEDULE = 9, EBB_ERR_STATE = 10, EBB_ERR_INTERNAL = 11

  ! ---- what a callback returns (ebb/runtime.h) ----------------------------
  integer(c_int), parameter, public :: EBB_STEP_OK = 0
  integer(c_int), parameter, public :: EBB_STEP_LAST = 1279349588 ! 0x4c415354

  ! ---- tiers, strategies, audit modes --------------------------------------
  integer(c_int), parameter, public :: EBB_TIER_GPU = 0, EBB_TIER_HOST = 1, &
       EBB_TIER_DISK = 2, EBB_TIER_COUNT = 3
  ! ebb_strategy (ebb/vocabulary.h): one list for schedules and run.strategy
  integer(c_int), parameter, public :: EBB_STRATEGY_FROM_CONFIG = -1, &
       EBB_STRATEGY_STORE_ALL = 0, EBB_STRATEGY_PERIODIC = 1, EBB_STRATEGY_REVOLVE = 2, &
       EBB_STRATEGY_ONLINE = 3, EBB_STRATEGY_MULTISTAGE = 4, EBB_STRATEGY_DISK_REVOLVE = 5, &
       EBB_STRATEGY_H_REVOLVE = 6, EBB_STRATEGY_ASYNC = 7, EBB_STRATEGY_AUTO = 8
  ! the same values by their former names
  integer(c_int), parameter, public :: EBB_CONFIG_STRATEGY_AUTO = EBB_STRATEGY_AUTO, &
       EBB_CONFIG_STRATEGY_STORE_ALL = EBB_STRATEGY_STORE_ALL, &
       EBB_CONFIG_STRATEGY_PERIODIC = EBB_STRATEGY_PERIODIC, &
       EBB_CONFIG_STRATEGY_REVOLVE = EBB_STRATEGY_REVOLVE, &
       EBB_CONFIG_STRATEGY_ONLINE = EBB_STRATEGY_ONLINE, &
       EBB_CONFIG_STRATEGY_MULTISTAGE = EBB_STRATEGY_MULTISTAGE, &
       EBB_CONFIG_STRATEGY_DISK_REVOLVE = EBB_STRATEGY_DISK_REVOLVE, &
       EBB_CONFIG_STRATEGY_ASYNC = EBB_STRATEGY_ASYNC, &
       EBB_CONFIG_STRATEGY_H_REVOLVE = EBB_STRATEGY_H_REVOLVE
  integer(c_int), parameter, public :: EBB_AUDIT_OFF = 0, EBB_AUDIT_REPLAY = 1, &
       EBB_AUDIT_HASH = 2
  integer(c_int), parameter, public :: EBB_RUN_FROM_CONFIG = -1

  ! ---- configuration keys (ebb/config.h), for ebb_config_key_set ----------
  integer(c_int), parameter, public :: EBB_KEY_RUN_STRATEGY = 0, EBB_KEY_RUN_AUDIT = 1, &
       EBB_KEY_RUN_ERROR_SAMPLES = 2, &
       EBB_KEY_GPU_ENABLED = 3, EBB_KEY_GPU_BUDGET = 4, EBB_KEY_GPU_DEVICE = 5, &
       EBB_KEY_GPU_CHUNK_SIZE = 6, EBB_KEY_HOST_ENABLED = 7, EBB_KEY_HOST_BUDGET = 8, &
       EBB_KEY_HOST_NUMA = 9, EBB_KEY_HOST_PIN = 10, EBB_KEY_HOST_PREFAULT = 11, &
       EBB_KEY_HOST_STAGING = 12, EBB_KEY_DISK_ENABLED = 19, EBB_KEY_DISK_PATH = 20, &
       EBB_KEY_DISK_BUDGET = 21

  ! ---- ebb_run_options and ebb_run_stats, field for field -----------------
  ! (tests/fortran checks every offset against the C compiler's.)
  type, bind(c), public :: ebb_run_options
     integer(c_size_t) :: state_size = 0      ! bytes of one state
     integer(c_int) :: state_tier = 1         ! EBB_TIER_HOST or EBB_TIER_GPU
     integer(c_int) :: device = -1
     type(c_ptr) :: stream = c_null_ptr
     type(c_funptr) :: forward = c_null_funptr          ! out of place
     type(c_funptr) :: forward_inplace = c_null_funptr  ! or in place
     type(c_funptr) :: reverse = c_null_funptr
     type(c_ptr) :: user = c_null_ptr         ! handed to every callback
     integer(c_int64_t) :: steps = 0          ! n; 0: the forward says when it ends
     type(c_ptr) :: config = c_null_ptr       ! from ebb_config_create; null: the default
     integer(c_int) :: strategy = -1          ! EBB_STRATEGY_*, -1: the configuration's
     integer(c_int) :: fast_tier = -1
     integer(c_int) :: slow_tier = -1
     integer(c_int32_t) :: slots = 0          ! 0: what the fast tier's budget holds
     integer(c_int32_t) :: slow_slots = 0
     integer(c_int64_t) :: period = 0
     real(c_double) :: io_ratio = 0
     integer(c_int) :: audit = -1
     integer(c_int32_t) :: staging = 0
     type(c_ptr) :: trace = c_null_ptr        ! timeline file: c_loc of a NUL-terminated
                                              ! character(kind=c_char) that outlives the run
     real(c_double) :: forward_seconds = 0    ! "auto": one step's times, if known
     real(c_double) :: reverse_seconds = 0
     integer(c_int) :: element = -1           ! compression: EBB_ELEMENT_*, -1: tier.disk.element
     integer(c_int32_t) :: dims = 0           ! 0: one dimension; 1..4 with shape
     integer(c_int64_t) :: shape(4) = 0       ! extents, fastest varying first
     integer(c_int32_t) :: error_samples = -1 ! lossy error estimate: states kept exact;
                                              ! 0 off, -1: run.error_samples
     type(c_ptr) :: forward_costs = c_null_ptr ! steps of different costs: c_loc of n
     type(c_ptr) :: reverse_costs = c_null_ptr ! real(c_double) each, or both null
     integer(c_int) :: measure_costs = 0      ! 1: "online" plans its reverse sweep from the
                                              ! first sweep's measured step times
     type(c_ptr) :: state_sizes = c_null_ptr  ! states of different sizes: c_loc of n + 1
                                              ! integer(c_size_t), x_0 .. x_n, or null
  end type ebb_run_options

  ! Arrays are indexed by tier: stores(EBB_TIER_DISK).
  type, bind(c), public :: ebb_run_stats
     integer(c_int64_t) :: steps, forward_steps, recomputed_steps, reverse_steps
     integer(c_int64_t) :: stores(0:2), restores(0:2)
     integer(c_int64_t) :: copies, prefetches, cache_hits
     integer(c_int64_t) :: bytes_written(0:2), bytes_read(0:2) ! uint64 in C
     integer(c_int32_t) :: peak_slots(0:2)
     real(c_double) :: stall_s(0:2)
     real(c_double) :: stall_total_s, forward_callback_s, reverse_callback_s, copy_s
     real(c_double) :: forward_sweep_s, reverse_sweep_s, wall_s
     integer(c_int64_t) :: bytes_before_compression, bytes_after_compression ! uint64 in C
     integer(c_int64_t) :: stored_raw
     real(c_double) :: codec_s
     integer(c_int64_t) :: stored_raw_slower
     real(c_double) :: codec_ratio, compress_bps, decompress_bps
     ! per tier; bytes_before_compression, bytes_after_compression and codec_s are their sums
     integer(c_int64_t) :: bytes_before_compression_tier(0:2) ! uint64 in C
     integer(c_int64_t) :: bytes_after_compression_tier(0:2)  ! uint64 in C
     real(c_double) :: codec_s_tier(0:2)
     integer(c_int64_t) :: compressions(0:2), decompressions(0:2)
     real(c_double) :: host_compress_bps, host_decompress_bps
     ! the lossy error estimate (error_samples)
     integer(c_int64_t) :: error_samples, error_samples_differ
     real(c_double) :: state_rel_error_max, state_rel_error_rms, gradient_rel_error_estimate
  end type ebb_run_stats

  ! ---- the callbacks' interfaces -------------------------------------------
  abstract interface
     integer(c_int) function ebb_forward_proc(user, step, in, out) bind(c)
       import :: c_int, c_int64_t, c_ptr
       type(c_ptr), value :: user, in, out
       integer(c_int64_t), value :: step
     end function ebb_forward_proc
     integer(c_int) function ebb_state_proc(user, step, state) bind(c)
       import :: c_int, c_int64_t, c_ptr
       type(c_ptr), value :: user, state
       integer(c_int64_t), value :: step
     end function ebb_state_proc
  end interface
  public :: ebb_forward_proc, ebb_state_proc

  ! ---- the C functions called as they are ---------------------------------
  interface
     subroutine ebb_run_options_init(options) bind(c, name="ebb_run_options_init")
       import :: ebb_run_options
       type(ebb_run_options), intent(out) :: options
     end subroutine ebb_run_options_init
     integer(c_int) function ebb_run_create(options, run) bind(c, name="ebb_run_create")
       import :: c_int, c_ptr, ebb_run_options
       type(ebb_run_options), intent(in) :: options
       type(c_ptr), intent(out) :: run
     end function ebb_run_create
     subroutine ebb_run_destroy(run) bind(c, name="ebb_run_destroy")
       import :: c_ptr
       type(c_ptr), value :: run
     end subroutine ebb_run_destroy
     integer(c_int) function ebb_run_forward(run, x0, xn) bind(c, name="ebb_run_forward")
       import :: c_int, c_ptr
       type(c_ptr), value :: run, x0
       type(c_ptr), intent(out) :: xn
     end function ebb_run_forward
     integer(c_int) function ebb_run_begin(run, x0) bind(c, name="ebb_run_begin")
       import :: c_int, c_ptr
       type(c_ptr), value :: run, x0
     end function ebb_run_begin
     integer(c_int) function ebb_run_advance(run, max_steps, done) bind(c, name="ebb_run_advance")
       import :: c_int, c_int64_t, c_ptr
       type(c_ptr), value :: run
       integer(c_int64_t), value :: max_steps
       integer(c_int64_t), intent(out) :: done
     end function ebb_run_advance
     integer(c_int) function ebb_run_finish_forward(run, xn) bind(c, name="ebb_run_finish_forward")
       import :: c_int, c_ptr
       type(c_ptr), value :: run
       type(c_ptr), intent(out) :: xn
     end function ebb_run_finish_forward
     integer(c_int) function ebb_run_reverse(run) bind(c, name="ebb_run_reverse")
       import :: c_int, c_ptr
       type(c_ptr), value :: run
     end function ebb_run_reverse
     integer(c_int) function ebb_run_stats_get(run, stats) bind(c, name="ebb_run_stats_get")
       import :: c_int, c_ptr, ebb_run_stats
       type(c_ptr), value :: run
       type(ebb_run_stats), intent(out) :: stats
     end function ebb_run_stats_get
     integer(c_int) function ebb_config_check(cfg, state_bytes) bind(c, name="ebb_config_check")
       import :: c_int, c_ptr, c_size_t
       type(c_ptr), value :: cfg
       integer(c_size_t), value :: state_bytes
     end function ebb_config_check
     integer(c_int) function ebb_config_budget(cfg, tier, bytes) bind(c, name="ebb_config_budget")
       import :: c_int, c_ptr, c_int64_t
       type(c_ptr), value :: cfg
       integer(c_int), value :: tier
       integer(c_int64_t), intent(out) :: bytes ! uint64 in C
     end function ebb_config_budget
     subroutine ebb_clear_error() bind(c, name="ebb_clear_error")
     end subroutine ebb_clear_error
  end interface
  public :: ebb_run_options_init, ebb_run_create, ebb_run_destroy, ebb_run_forward, &
       ebb_run_begin, ebb_run_advance, ebb_run_finish_forward, ebb_run_reverse, &
       ebb_run_stats_get, ebb_config_check, ebb_config_budget, ebb_clear_error

  ! ---- the C functions behind the Fortran wrappers below -------------------
  interface
     function c_last_error() bind(c, name="ebb_last_error")
       import :: c_ptr
       type(c_ptr) :: c_last_error
     end function c_last_error
     function c_status_name(status) bind(c, name="ebb_status_name")
       import :: c_ptr, c_int
       integer(c_int), value :: status
       type(c_ptr) :: c_status_name
     end function c_status_name
     function c_version() bind(c, name="ebb_version")
       import :: c_ptr
       type(c_ptr) :: c_version
     end function c_version
     function c_strlen(s) bind(c, name="strlen")
       import :: c_ptr, c_size_t
       type(c_ptr), value :: s
       integer(c_size_t) :: c_strlen
     end function c_strlen
     integer(c_int) function c_callback_fail(message) bind(c, name="ebb_fortran_callback_fail")
       import :: c_int, c_char
       character(kind=c_char), intent(in) :: message(*)
     end function c_callback_fail
     integer(c_int) function c_config_create(cfg) bind(c, name="ebb_fortran_config_create")
       import :: c_int, c_ptr
       type(c_ptr), intent(out) :: cfg
     end function c_config_create
     subroutine c_config_destroy(cfg) bind(c, name="ebb_fortran_config_destroy")
       import :: c_ptr
       type(c_ptr), value :: cfg
     end subroutine c_config_destroy
     integer(c_int32_t) function c_config_line(cfg, key) bind(c, name="ebb_fortran_config_line")
       import :: c_int32_t, c_int, c_ptr
       type(c_ptr), value :: cfg
       integer(c_int), value :: key
     end function c_config_line
     integer(c_int) function c_config_strategy(cfg) bind(c, name="ebb_fortran_config_strategy")
       import :: c_int, c_ptr
       type(c_ptr), value :: cfg
     end function c_config_strategy
     integer(c_int) function c_config_load_file(path, cfg) bind(c, name="ebb_config_load_file")
       import :: c_int, c_ptr, c_char
       character(kind=c_char), intent(in) :: path(*)
       type(c_ptr), value :: cfg
     end function c_config_load_file
     integer(c_int) function c_config_load_string(toml, name, cfg) &
          bind(c, name="ebb_config_load_string")
       import :: c_int, c_ptr, c_char
       character(kind=c_char), intent(in) :: toml(*), name(*)
       type(c_ptr), value :: cfg
     end function c_config_load_string
     integer(c_int) function c_strategy_from_name(name, out) &
          bind(c, name="ebb_config_strategy_from_name")
       import :: c_int, c_char
       character(kind=c_char), intent(in) :: name(*)
       integer(c_int), intent(out) :: out
     end function c_strategy_from_name
     function c_strategy_name(strategy) bind(c, name="ebb_config_strategy_name")
       import :: c_ptr, c_int
       integer(c_int), value :: strategy
       type(c_ptr) :: c_strategy_name
     end function c_strategy_name
     function c_run_strategy_name(run) bind(c, name="ebb_fortran_run_strategy_name")
       import :: c_ptr
       type(c_ptr), value :: run
       type(c_ptr) :: c_run_strategy_name
     end function c_run_strategy_name
  end interface

  public :: ebb_last_error, ebb_status_name, ebb_version, ebb_callback_fail
  public :: ebb_config_create, ebb_config_destroy, ebb_config_load_file, &
       ebb_config_load_string, ebb_config_key_set, ebb_config_strategy, &
       ebb_config_strategy_from_name, ebb_config_strategy_name, ebb_run_strategy_name

contains

  ! A C string (NUL-terminated, owned by ebb) as a Fortran string.
  function from_c(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
       s = ''
       return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
       s(i:i) = chars(i)
    end do
  end function from_c

  ! Trailing blanks dropped (Fortran pads), a NUL appended.
  pure function to_c(s) result(c)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=len_trim(s) + 1) :: c
    c = trim(s)//c_null_char
  end function to_c

  ! The message of the last failure on this thread, '' if none.
  function ebb_last_error() result(s)
    character(len=:), allocatable :: s
    s = from_c(c_last_error())
  end function ebb_last_error

  ! "EBB_ERR_IO" for EBB_ERR_IO, and so on.
  function ebb_status_name(status) result(s)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: s
    s = from_c(c_status_name(status))
  end function ebb_status_name

  function ebb_version() result(s)
    character(len=:), allocatable :: s
    s = from_c(c_version())
  end function ebb_version

  ! For a callback that fails: ebb reports `message` ("reverse step 41
  ! failed: message"); return the result from the callback.
  integer(c_int) function ebb_callback_fail(message)
    character(len=*), intent(in) :: message
    ebb_callback_fail = c_callback_fail(to_c(message))
  end function ebb_callback_fail

  ! A configuration set to ebb's embedded default; free with ebb_config_destroy.
  integer(c_int) function ebb_config_create(cfg)
    type(c_ptr), intent(out) :: cfg
    ebb_config_create = c_config_create(cfg)
  end function ebb_config_create

  ! Frees the configuration and nulls the pointer; a null one is allowed.
  subroutine ebb_config_destroy(cfg)
    type(c_ptr), intent(inout) :: cfg
    if (c_associated(cfg)) call c_config_destroy(cfg)
    cfg = c_null_ptr
  end subroutine ebb_config_destroy

  ! A TOML file over the configuration's values (docs/configuration.md).
  integer(c_int) function ebb_config_load_file(path, cfg)
    character(len=*), intent(in) :: path
    type(c_ptr), intent(in) :: cfg
    ebb_config_load_file = c_config_load_file(to_c(path), cfg)
  end function ebb_config_load_file

  ! TOML text over the configuration's values, the way a program sets them:
  !   status = ebb_config_load_string('[tier.host]'//new_line('a')//'budget = "4 GiB"', cfg)
  ! `name` stands for the file name in messages (default "<fortran>").
  integer(c_int) function ebb_config_load_string(toml, cfg, name)
    character(len=*), intent(in) :: toml
    type(c_ptr), intent(in) :: cfg
    character(len=*), intent(in), optional :: name
    if (present(name)) then
       ebb_config_load_string = c_config_load_string(to_c(toml), to_c(name), cfg)
    else
       ebb_config_load_string = c_config_load_string(to_c(toml), to_c('<fortran>'), cfg)
    end if
  end function ebb_config_load_string

  ! Whether a file (or string) loaded into cfg set this key (EBB_KEY_*).
  logical function ebb_config_key_set(cfg, key)
    type(c_ptr), intent(in) :: cfg
    integer(c_int), intent(in) :: key
    ebb_config_key_set = c_config_line(cfg, key) /= 0
  end function ebb_config_key_set

  ! run.strategy of cfg (EBB_CONFIG_STRATEGY_*).
  integer(c_int) function ebb_config_strategy(cfg)
    type(c_ptr), intent(in) :: cfg
    ebb_config_strategy = c_config_strategy(cfg)
  end function ebb_config_strategy

  ! "revolve" -> EBB_CONFIG_STRATEGY_REVOLVE; EBB_ERR_INVALID_ARG for an
  ! unknown name (the message suggests the closest).
  integer(c_int) function ebb_config_strategy_from_name(name, strategy)
    character(len=*), intent(in) :: name
    integer(c_int), intent(out) :: strategy
    ebb_config_strategy_from_name = c_strategy_from_name(to_c(name), strategy)
  end function ebb_config_strategy_from_name

  function ebb_config_strategy_name(strategy) result(s)
    integer(c_int), intent(in) :: strategy
    character(len=:), allocatable :: s
    s = from_c(c_strategy_name(strategy))
  end function ebb_config_strategy_name

  ! The strategy a run resolved ("multistage"); '' if it cannot say.
  function ebb_run_strategy_name(run) result(s)
    type(c_ptr), intent(in) :: run
    character(len=:), allocatable :: s
    s = from_c(c_run_strategy_name(run))
  end function ebb_run_strategy_name

end module ebb
