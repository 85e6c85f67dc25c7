; clang-22 -O0 output of a C function taking a struct of two doubles by value (coerced into two double arguments): the struct's stack copy disappears, both arguments get adjoints
; RUN: enzyme-py opt %s -p 'prepare{fn=dist2},reverse{fn=dist2,acts=out,out},sroa,instcombine,simplifycfg' | filecheck %s

; ModuleID = 'point.c'
source_filename = "point.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.point = type { double, double }

; Function Attrs: noinline nounwind optnone uwtable
define dso_local double @dist2(double %0, double %1) #0 {
  %3 = alloca %struct.point, align 8
  %4 = getelementptr inbounds nuw { double, double }, ptr %3, i32 0, i32 0
  store double %0, ptr %4, align 8
  %5 = getelementptr inbounds nuw { double, double }, ptr %3, i32 0, i32 1
  store double %1, ptr %5, align 8
  %6 = getelementptr inbounds nuw %struct.point, ptr %3, i32 0, i32 0
  %7 = load double, ptr %6, align 8
  %8 = getelementptr inbounds nuw %struct.point, ptr %3, i32 0, i32 0
  %9 = load double, ptr %8, align 8
  %10 = getelementptr inbounds nuw %struct.point, ptr %3, i32 0, i32 1
  %11 = load double, ptr %10, align 8
  %12 = getelementptr inbounds nuw %struct.point, ptr %3, i32 0, i32 1
  %13 = load double, ptr %12, align 8
  %14 = fmul double %11, %13
  %15 = call double @llvm.fmuladd.f64(double %7, double %9, double %14)
  ret double %15
}

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

attributes #0 = { noinline nounwind optnone uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2, !3, !4}
!llvm.ident = !{!5}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{i32 7, !"frame-pointer", i32 2}
!5 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}

; CHECK-LABEL: define { double, double } @diffe_dist2(double %0, double %1, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[A:%[0-9]+]] = fmul double %dret, %1
; CHECK-NEXT: [[B:%[0-9]+]] = fmul double %dret, %1
; CHECK-NEXT: [[DY:%[0-9]+]] = fadd reassoc double [[A]], [[B]]
; CHECK-NEXT: [[C:%[0-9]+]] = fmul double %dret, %0
; CHECK-NEXT: [[D:%[0-9]+]] = fmul double %dret, %0
; CHECK-NEXT: [[DX:%[0-9]+]] = fadd reassoc double [[C]], [[D]]
; CHECK-NEXT: [[R:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double [[DX]], 0
; CHECK-NEXT: insertvalue { double, double } [[R]], double [[DY]], 1
