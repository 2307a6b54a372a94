! The reaction-diffusion model of examples/reaction_diffusion/model.c in
! Fortran, with nothing of ebb in it: the part of an adjoint solver a
! scientist already has.
!
!     u_t = k u_xx - r u^3      periodic grid of N points, explicit Euler
!     J = sum_{i<n} w mean_j(u_i[j]^2)/2 + mean_j((u_n[j] - target[j])^2)/2
!
! Every operation is the C file's, in the same order (parentheses where C's
! left-to-right order matters, since a Fortran compiler may otherwise pick
! any mathematically equal order), so both give the same bits: the tests
! compare the gradients bitwise. Build with -ffp-contract=off (no fused
! multiply-add, as the C build under -std=c17) and -fwrapv (the splitmix
! generator multiplies 64-bit integers modulo 2^64).
module rd_model
  use, intrinsic :: iso_c_binding, only: dp => c_double, i8 => c_int64_t
  implicit none
  private
  public :: dp, i8, rd_params, rd_params_default, rd_initial, rd_target, rd_step, &
       rd_running_cost, rd_final_cost, rd_final_adjoint, rd_adjoint_step, rd_objective, &
       rd_direction, rd_dot

  real(dp), parameter :: two_pi = 6.283185307179586476925286766559_dp
  integer(i8), parameter :: block = 256

  type :: rd_params
     integer(i8) :: points = 0 ! N >= 3
     integer(i8) :: steps = 0  ! n >= 1
     real(dp) :: k, r, dt, h, weight
  end type rd_params

  ! Pairwise sums: blocks of 256 terms in a plain loop, the block sums
  ! combined as a binary tree (level(k): the sum of 2^k blocks).
  type :: pairwise
     real(dp) :: level(0:63) = 0
     integer(i8) :: blocks = 0
  end type pairwise

contains

  ! k = 1, r = 1, h = 1, dt = 0.2 (s = q = 0.2: stable for any n), w = 0.01.
  function rd_params_default(points, steps) result(p)
    integer(i8), intent(in) :: points, steps
    type(rd_params) :: p
    p%points = points
    p%steps = steps
    p%k = 1.0_dp
    p%r = 1.0_dp
    p%h = 1.0_dp
    p%dt = 0.2_dp
    p%weight = 0.01_dp
  end function rd_params_default

  ! splitmix64, in integer(int64) arithmetic modulo 2^64 (-fwrapv).
  pure integer(i8) function mix(x0)
    integer(i8), intent(in) :: x0
    integer(i8) :: x
    x = x0 + (-7046029254386353131_i8)                       ! 0x9e3779b97f4a7c15
    x = ieor(x, shiftr(x, 30)) * (-4658895280553007687_i8)    ! 0xbf58476d1ce4e5b9
    x = ieor(x, shiftr(x, 27)) * (-7723592293110705685_i8)    ! 0x94d049bb133111eb
    mix = ieor(x, shiftr(x, 31))
  end function mix

  ! Uniform in [-1, 1): the C file's noise(seed, j).
  pure real(dp) function noise(seed, j)
    integer(i8), intent(in) :: seed, j
    noise = real(shiftr(mix(seed * 1099511628211_i8 + j), 11), dp) * 2.0_dp**(-52) - 1.0_dp
  end function noise

  subroutine rd_initial(p, u0)
    type(rd_params), intent(in) :: p
    real(dp), intent(out) :: u0(0:)
    integer(i8) :: j
    real(dp) :: x
    do j = 0, p%points - 1
       x = real(j, dp) / real(p%points, dp)
       u0(j) = (0.6_dp * sin((two_pi * 3.0_dp) * x) &
            + 0.15_dp * sin((two_pi * real(j, dp)) / 8.0_dp)) + 0.05_dp * noise(1_i8, j)
    end do
  end subroutine rd_initial

  subroutine rd_target(p, target)
    type(rd_params), intent(in) :: p
    real(dp), intent(out) :: target(0:)
    integer(i8) :: j
    real(dp) :: x
    do j = 0, p%points - 1
       x = real(j, dp) / real(p%points, dp)
       target(j) = 0.3_dp * sin(two_pi * (3.0_dp * x + 0.05_dp))
    end do
  end subroutine rd_target

  pure real(dp) function point(s, q, l, c, r)
    real(dp), intent(in) :: s, q, l, c, r
    point = (c + s * ((l - 2.0_dp * c) + r)) - ((q * c) * c) * c
  end function point

  ! One explicit Euler step: out = F(in).
  subroutine rd_step(p, in, out)
    type(rd_params), intent(in) :: p
    real(dp), intent(in) :: in(0:)
    real(dp), intent(out) :: out(0:)
    integer(i8) :: j, n
    real(dp) :: s, q
    n = p%points
    s = (p%k * p%dt) / (p%h * p%h)
    q = p%r * p%dt
    out(0) = point(s, q, in(n - 1), in(0), in(1))
    do j = 1, n - 2
       out(j) = point(s, q, in(j - 1), in(j), in(j + 1))
    end do
    out(n - 1) = point(s, q, in(n - 2), in(n - 1), in(0))
  end subroutine rd_step

  subroutine pairwise_add(s, block_sum)
    type(pairwise), intent(inout) :: s
    real(dp), intent(in) :: block_sum
    real(dp) :: b
    integer(i8) :: c
    integer :: k
    b = block_sum
    k = 0
    c = s%blocks
    do while (iand(c, 1_i8) /= 0)
       b = s%level(k) + b
       c = shiftr(c, 1)
       k = k + 1
    end do
    s%level(k) = b
    s%blocks = s%blocks + 1
  end subroutine pairwise_add

  pure real(dp) function pairwise_total(s)
    type(pairwise), intent(in) :: s
    integer :: k
    pairwise_total = 0.0_dp
    do k = 0, 63
       if (btest(s%blocks, k)) pairwise_total = pairwise_total + s%level(k)
    end do
  end function pairwise_total

  ! sum_j a(j) * b(j), pairwise.
  real(dp) function rd_dot(p, a, b)
    type(rd_params), intent(in) :: p
    real(dp), intent(in) :: a(0:), b(0:)
    type(pairwise) :: s
    integer(i8) :: k, j
    real(dp) :: sum
    do k = 0, p%points - 1, block
       sum = 0.0_dp
       do j = k, min(k + block, p%points) - 1
          sum = sum + a(j) * b(j)
       end do
       call pairwise_add(s, sum)
    end do
    rd_dot = pairwise_total(s)
  end function rd_dot

  ! w sum_j u(j)^2 / (2 N)
  real(dp) function rd_running_cost(p, u)
    type(rd_params), intent(in) :: p
    real(dp), intent(in) :: u(0:)
    rd_running_cost = (p%weight * rd_dot(p, u, u)) / (2.0_dp * real(p%points, dp))
  end function rd_running_cost

  ! sum_j (un(j) - target(j))^2 / (2 N)
  real(dp) function rd_final_cost(p, target, un)
    type(rd_params), intent(in) :: p
    real(dp), intent(in) :: target(0:), un(0:)
    type(pairwise) :: s
    integer(i8) :: k, j
    real(dp) :: sum
    do k = 0, p%points - 1, block
       sum = 0.0_dp
       do j = k, min(k + block, p%points) - 1
          sum = sum + (un(j) - target(j)) * (un(j) - target(j))
       end do
       call pairwise_add(s, sum)
    end do
    rd_final_cost = pairwise_total(s) / (2.0_dp * real(p%points, dp))
  end function rd_final_cost

  ! lambda_n = (u_n - target) / N
  subroutine rd_final_adjoint(p, target, un, lambda)
    type(rd_params), intent(in) :: p
    real(dp), intent(in) :: target(0:), un(0:)
    real(dp), intent(out) :: lambda(0:)
    real(dp) :: inv_n
    integer(i8) :: j
    inv_n = 1.0_dp / real(p%points, dp)
    do j = 0, p%points - 1
       lambda(j) = (un(j) - target(j)) * inv_n
    end do
  end subroutine rd_final_adjoint

  pure real(dp) function adjoint_point(s, q, c_w, u, l, c, r)
    real(dp), intent(in) :: s, q, c_w, u, l, c, r
    adjoint_point = (c * ((1.0_dp - 2.0_dp * s) - ((3.0_dp * q) * u) * u) + s * (l + r)) + c_w * u
  end function adjoint_point

  ! lambda_i = (dF/du)(u_i)^T lambda_{i+1} + w u_i / N;
  ! grad_r += lambda_{i+1} . dF/dr(u_i) = -dt sum_j lambda_{i+1}(j) u_i(j)^3
  subroutine rd_adjoint_step(p, u, ln, lambda, grad_r)
    type(rd_params), intent(in) :: p
    real(dp), intent(in) :: u(0:), ln(0:)
    real(dp), intent(out) :: lambda(0:)
    real(dp), intent(inout) :: grad_r
    type(pairwise) :: s_r
    integer(i8) :: n, j, k
    real(dp) :: s, q, c_w, sum
    n = p%points
    s = (p%k * p%dt) / (p%h * p%h)
    q = p%r * p%dt
    c_w = p%weight / real(n, dp)
    lambda(0) = adjoint_point(s, q, c_w, u(0), ln(n - 1), ln(0), ln(1))
    do j = 1, n - 2
       lambda(j) = adjoint_point(s, q, c_w, u(j), ln(j - 1), ln(j), ln(j + 1))
    end do
    lambda(n - 1) = adjoint_point(s, q, c_w, u(n - 1), ln(n - 2), ln(n - 1), ln(0))
    do k = 0, n - 1, block
       sum = 0.0_dp
       do j = k, min(k + block, n) - 1
          sum = sum + ((ln(j) * u(j)) * u(j)) * u(j)
       end do
       call pairwise_add(s_r, sum)
    end do
    grad_r = grad_r - p%dt * pairwise_total(s_r)
  end subroutine rd_adjoint_step

  ! J by the plain forward loop, no adjoint, no ebb.
  real(dp) function rd_objective(p, target, u0)
    type(rd_params), intent(in) :: p
    real(dp), intent(in) :: target(0:), u0(0:)
    real(dp), allocatable :: a(:), b(:)
    integer(i8) :: i
    allocate (a(0:p%points - 1), b(0:p%points - 1))
    a(:) = u0(0:p%points - 1)
    rd_objective = 0.0_dp
    do i = 0, p%steps - 1
       rd_objective = rd_objective + rd_running_cost(p, a)
       call rd_step(p, a, b)
       call move_alloc_swap(a, b)
    end do
    rd_objective = rd_objective + rd_final_cost(p, target, a)
  end function rd_objective

  subroutine move_alloc_swap(a, b)
    real(dp), allocatable, intent(inout) :: a(:), b(:)
    real(dp), allocatable :: t(:)
    call move_alloc(a, t)
    call move_alloc(b, a)
    call move_alloc(t, b)
  end subroutine move_alloc_swap

  ! A reproducible direction for the finite-difference check.
  subroutine rd_direction(p, seed, d)
    type(rd_params), intent(in) :: p
    integer(i8), intent(in) :: seed
    real(dp), intent(out) :: d(0:)
    real(dp) :: phase, x
    integer(i8) :: j
    phase = noise(seed, -1_i8)
    do j = 0, p%points - 1
       x = real(j, dp) / real(p%points, dp)
       d(j) = sin(two_pi * (3.0_dp * x + phase)) + 0.5_dp * noise(seed, j)
    end do
  end subroutine rd_direction

end module rd_model
