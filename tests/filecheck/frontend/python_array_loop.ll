; the Python front end's IR of a loop over an array with bounds checks (an error record global, a checked and an unchecked copy of the loop): prepare folds the check away; the gradient recomputes sin(x[i]) for w in the reverse loop (the forward sweep needs it for nothing else: no tape, the forward loop only counts) and adds cos(x[i]) w into x's shadow
; RUN: enzyme-py opt %s -p 'prepare{fn=loss},reverse{fn=loss,acts=dup,const,out},sroa,instcombine,simplifycfg' | filecheck %s

; ModuleID = 'enzyme_py:loss'

@enzyme_py.error.1 = global [3 x i64] zeroinitializer, align 8

define double @loss(ptr noalias %x, i64 %x.shape0, double %w) {
entry:
  %retval = alloca double
  %x.1 = alloca ptr
  %x.shape0.1 = alloca i64
  %x.stride0 = alloca i64
  %w.1 = alloca double
  %s = alloca double
  %i = alloca i64
  %i.next = alloca i64
  %i.next.1 = alloca i64
  br label %body

body:
  store ptr %x, ptr %x.1
  store i64 %x.shape0, ptr %x.shape0.1
  store i64 1, ptr %x.stride0
  store double %w, ptr %w.1
  store double 0.000000e+00, ptr %s
  %x.2 = load ptr, ptr %x.1
  %0 = load i64, ptr %x.shape0.1
  %1 = load i64, ptr %x.stride0
  %2 = sub i64 %0, 1
  %3 = icmp sge i64 0, %0
  %x.3 = load ptr, ptr %x.1
  %4 = load i64, ptr %x.shape0.1
  %5 = load i64, ptr %x.stride0
  %6 = add i64 0, 0
  %7 = add i64 %2, 0
  %8 = icmp sge i64 %6, 0
  %9 = icmp slt i64 %7, %4
  %10 = and i1 true, %8
  %11 = and i1 %10, %9
  %12 = or i1 %3, %11
  br i1 %12, label %for.unchecked, label %for.checked

for.unchecked:
  store i64 0, ptr %i.next
  br label %for.cond

for.checked:
  store i64 0, ptr %i.next.1
  br label %for.cond.1

for.join:
  %s.1 = load double, ptr %s
  store double %s.1, ptr %retval
  br label %exit

for.cond:
  %i.1 = load i64, ptr %i.next
  %13 = icmp slt i64 %i.1, %0
  br i1 %13, label %for.body, label %for.end

for.body:
  store i64 %i.1, ptr %i
  %s.2 = load double, ptr %s
  %x.4 = load ptr, ptr %x.1
  %14 = load i64, ptr %x.shape0.1
  %15 = load i64, ptr %x.stride0
  %i.2 = load i64, ptr %i
  %16 = mul nsw i64 %i.2, %15
  %17 = getelementptr inbounds double, ptr %x.4, i64 %16
  %18 = load double, ptr %17
  %19 = call double @llvm.sin.f64(double %18)
  %w.2 = load double, ptr %w.1
  %20 = fmul double %19, %w.2
  %21 = fadd double %s.2, %20
  store double %21, ptr %s
  br label %for.inc

for.inc:
  %22 = load i64, ptr %i.next
  %23 = add nsw i64 %22, 1
  store i64 %23, ptr %i.next
  br label %for.cond

for.end:
  br label %for.join

for.cond.1:
  %i.3 = load i64, ptr %i.next.1
  %24 = icmp slt i64 %i.3, %0
  br i1 %24, label %for.body.1, label %for.end.1

for.body.1:
  store i64 %i.3, ptr %i
  %s.3 = load double, ptr %s
  %x.5 = load ptr, ptr %x.1
  %25 = load i64, ptr %x.shape0.1
  %26 = load i64, ptr %x.stride0
  %i.4 = load i64, ptr %i
  %27 = icmp slt i64 %i.4, 0
  %28 = add i64 %i.4, %25
  %29 = select i1 %27, i64 %28, i64 %i.4
  %30 = icmp ult i64 %29, %25
  br i1 %30, label %check.ok, label %check.fail

for.inc.1:
  %31 = load i64, ptr %i.next.1
  %32 = add nsw i64 %31, 1
  store i64 %32, ptr %i.next.1
  br label %for.cond.1

for.end.1:
  br label %for.join

check.ok:
  %33 = mul nsw i64 %29, %26
  %34 = getelementptr inbounds double, ptr %x.5, i64 %33
  %35 = load double, ptr %34
  %36 = call double @llvm.sin.f64(double %35)
  %w.3 = load double, ptr %w.1
  %37 = fmul double %36, %w.3
  %38 = fadd double %s.3, %37
  store double %38, ptr %s
  br label %for.inc.1

check.fail:
  %39 = getelementptr inbounds [3 x i64], ptr @enzyme_py.error.1, i64 0, i64 0
  %40 = getelementptr inbounds [3 x i64], ptr @enzyme_py.error.1, i64 0, i64 1
  %41 = getelementptr inbounds [3 x i64], ptr @enzyme_py.error.1, i64 0, i64 2
  store i64 1, ptr %39
  store i64 %29, ptr %40
  store i64 %25, ptr %41
  store double 0.000000e+00, ptr %retval
  br label %exit

exit:
  %42 = load double, ptr %retval
  ret double %42
}

declare double @llvm.sin.f64(double)

; CHECK-LABEL: define double @diffe_loss(ptr %x, ptr %x.shadow, i64 %x.shape0, double %w, double %dret)
; CHECK-NOT: check.fail
; CHECK-NOT: @malloc
; CHECK: for.inc:
; CHECK-NEXT: add nuw nsw i64
; CHECK-NEXT: br label %for.cond
; CHECK: rev.for.cond.to.entry:
; CHECK-NEXT: ret double %w.d.0
; CHECK: rev.for.cond.to.for.inc:
; CHECK: [[DW:%[0-9]+]] = fmul double %dret, %w
; CHECK: [[X:%[0-9]+]] = load double, ptr
; CHECK: [[S:%[0-9]+]] = call double @llvm.sin.f64(double [[X]])
; CHECK: fmul double %dret, [[S]]
; CHECK: call double @llvm.cos.f64(double [[X]])
; CHECK: %v.shadow.1 = getelementptr inbounds nuw double, ptr %x.shadow, i64
; CHECK: store double %{{[0-9]+}}, ptr %v.shadow.1
