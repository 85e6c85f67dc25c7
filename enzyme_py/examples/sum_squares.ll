; ModuleID = 'sum_squares.c'
source_filename = "sum_squares.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: noinline nounwind uwtable
define dso_local double @sum_squares(ptr noundef %x, ptr noundef %w, i64 noundef %n) #0 {
entry:
  %x.addr = alloca ptr, align 8
  %w.addr = alloca ptr, align 8
  %n.addr = alloca i64, align 8
  %total = alloca double, align 8
  %i = alloca i64, align 8
  %xi = alloca double, align 8
  store ptr %x, ptr %x.addr, align 8
  store ptr %w, ptr %w.addr, align 8
  store i64 %n, ptr %n.addr, align 8
  store double 0.000000e+00, ptr %total, align 8
  store i64 0, ptr %i, align 8
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %entry
  %0 = load i64, ptr %i, align 8
  %1 = load i64, ptr %n.addr, align 8
  %cmp = icmp slt i64 %0, %1
  br i1 %cmp, label %for.body, label %for.end

for.body:                                         ; preds = %for.cond
  %2 = load ptr, ptr %x.addr, align 8
  %3 = load i64, ptr %i, align 8
  %arrayidx = getelementptr inbounds double, ptr %2, i64 %3
  %4 = load double, ptr %arrayidx, align 8
  store double %4, ptr %xi, align 8
  %5 = load ptr, ptr %w.addr, align 8
  %6 = load i64, ptr %i, align 8
  %arrayidx1 = getelementptr inbounds double, ptr %5, i64 %6
  %7 = load double, ptr %arrayidx1, align 8
  %8 = load double, ptr %xi, align 8
  %mul = fmul double %7, %8
  %9 = load double, ptr %xi, align 8
  %10 = load double, ptr %total, align 8
  %11 = call double @llvm.fmuladd.f64(double %mul, double %9, double %10)
  store double %11, ptr %total, align 8
  br label %for.inc

for.inc:                                          ; preds = %for.body
  %12 = load i64, ptr %i, align 8
  %inc = add nsw i64 %12, 1
  store i64 %inc, ptr %i, align 8
  br label %for.cond, !llvm.loop !6

for.end:                                          ; preds = %for.cond
  %13 = load double, ptr %total, align 8
  ret double %13
}

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

attributes #0 = { noinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2, !3, !4}
!llvm.ident = !{!5}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{i32 7, !"frame-pointer", i32 2}
!5 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!6 = distinct !{!6, !7}
!7 = !{!"llvm.loop.mustprogress"}
