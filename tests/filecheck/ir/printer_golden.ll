; the printer: what LLVM 22 prints, back unchanged (numbering of unnamed values and blocks, calls with varargs, switch, splat constants, attribute groups, metadata)
; RUN: enzyme-py opt %s -p 'verify' | filecheck %s

%struct.P = type { double, ptr }
@tbl = internal constant [3 x double] [double 1.0, double 0x3FD5555555555555, double 0x7FF0000000000000], align 16
@s = private unnamed_addr constant [4 x i8] c"hi\0A\00"

declare double @llvm.sin.f64(double)
declare i32 @printf(ptr, ...)

define double @f(ptr noundef %p, i32 %n) #0 {
  %1 = getelementptr inbounds nuw %struct.P, ptr %p, i64 0, i32 0
  %2 = load double, ptr %1, align 8, !tbaa !3
  %3 = tail call fast double @llvm.sin.f64(double %2)
  %4 = icmp sgt i32 %n, 0
  br i1 %4, label %5, label %8

5:
  %6 = call i32 (ptr, ...) @printf(ptr @s, double %3)
  %7 = fmul contract double %3, 2.0
  br label %8

8:
  %9 = phi double [ %7, %5 ], [ %3, %0 ]
  switch i32 %n, label %11 [
    i32 1, label %10
    i32 7, label %10
  ]

10:
  ret double %9

11:
  %v = select i1 %4, <2 x double> splat (double 1.0), <2 x double> zeroinitializer
  %e = extractelement <2 x double> %v, i64 1
  ret double %e
}

attributes #0 = { nounwind }

!3 = !{!"double"}

; CHECK: %struct.P = type { double, ptr }
; CHECK: @tbl = internal constant [3 x double] [double 1.000000e+00, double 0x3FD5555555555555, double 0x7FF0000000000000], align 16
; CHECK: @s = private unnamed_addr constant [4 x i8] c"hi\0A\00"
; CHECK: declare double @llvm.sin.f64(double)
; CHECK: declare i32 @printf(ptr, ...)
; CHECK-LABEL: define double @f(ptr noundef %p, i32 %n) #0 {
; CHECK-NEXT:   %1 = getelementptr inbounds nuw %struct.P, ptr %p, i64 0, i32 0
; CHECK-NEXT:   %2 = load double, ptr %1, align 8, !tbaa !3
; CHECK-NEXT:   %3 = tail call fast double @llvm.sin.f64(double %2)
; CHECK-NEXT:   %4 = icmp sgt i32 %n, 0
; CHECK-NEXT:   br i1 %4, label %5, label %8
; CHECK:      5:
; CHECK-NEXT:   %6 = call i32 (ptr, ...) @printf(ptr @s, double %3)
; CHECK-NEXT:   %7 = fmul contract double %3, 2.000000e+00
; CHECK:      8:
; CHECK-NEXT:   %9 = phi double [ %7, %5 ], [ %3, %0 ]
; CHECK-NEXT:   switch i32 %n, label %11 [
; CHECK-NEXT:     i32 1, label %10
; CHECK-NEXT:     i32 7, label %10
; CHECK-NEXT:   ]
; CHECK:        %v = select i1 %4, <2 x double> splat (double 1.000000e+00), <2 x double> zeroinitializer
; CHECK:      attributes #0 = { nounwind }
; CHECK:      !3 = !{!"double"}
