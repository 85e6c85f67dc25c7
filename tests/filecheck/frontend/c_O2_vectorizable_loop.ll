; clang-22 -O2 output of a C reduction (unrolled by 4 with a remainder loop, sqrt as a libm call): forward mode handles every block, the tangent of sqrt divides by 2 sqrt(s)
; RUN: enzyme-py opt %s -p 'prepare{fn=norm},forward{fn=norm,acts=dup,const},sroa,instcombine,simplifycfg' | filecheck %s

; ModuleID = 'norm.c'
source_filename = "norm.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree norecurse nounwind memory(argmem: read, errnomem: write) uwtable
define dso_local double @norm(ptr noundef readonly captures(none) %0, i32 noundef %1) local_unnamed_addr #0 {
  %3 = icmp sgt i32 %1, 0
  br i1 %3, label %4, label %26

4:                                                ; preds = %2
  %5 = zext nneg i32 %1 to i64
  %6 = and i64 %5, 3
  %7 = icmp ult i32 %1, 4
  br i1 %7, label %12, label %8

8:                                                ; preds = %4
  %9 = and i64 %5, 2147483644
  br label %29

10:                                               ; preds = %29
  %11 = icmp eq i64 %6, 0
  br i1 %11, label %26, label %12

12:                                               ; preds = %10, %4
  %13 = phi i64 [ 0, %4 ], [ %48, %10 ]
  %14 = phi double [ 0.000000e+00, %4 ], [ %47, %10 ]
  %15 = icmp ne i64 %6, 0
  tail call void @llvm.assume(i1 %15)
  br label %16

16:                                               ; preds = %16, %12
  %17 = phi i64 [ %13, %12 ], [ %23, %16 ]
  %18 = phi double [ %14, %12 ], [ %22, %16 ]
  %19 = phi i64 [ 0, %12 ], [ %24, %16 ]
  %20 = getelementptr inbounds nuw double, ptr %0, i64 %17
  %21 = load double, ptr %20, align 8, !tbaa !9
  %22 = tail call double @llvm.fmuladd.f64(double %21, double %21, double %18)
  %23 = add nuw nsw i64 %17, 1
  %24 = add i64 %19, 1
  %25 = icmp eq i64 %24, %6
  br i1 %25, label %26, label %16, !llvm.loop !11

26:                                               ; preds = %10, %16, %2
  %27 = phi double [ 0.000000e+00, %2 ], [ %47, %10 ], [ %22, %16 ]
  %28 = tail call double @sqrt(double noundef %27) #4, !tbaa !5
  ret double %28

29:                                               ; preds = %29, %8
  %30 = phi i64 [ 0, %8 ], [ %48, %29 ]
  %31 = phi double [ 0.000000e+00, %8 ], [ %47, %29 ]
  %32 = phi i64 [ 0, %8 ], [ %49, %29 ]
  %33 = getelementptr inbounds nuw double, ptr %0, i64 %30
  %34 = load double, ptr %33, align 8, !tbaa !9
  %35 = tail call double @llvm.fmuladd.f64(double %34, double %34, double %31)
  %36 = getelementptr inbounds nuw double, ptr %0, i64 %30
  %37 = getelementptr inbounds nuw i8, ptr %36, i64 8
  %38 = load double, ptr %37, align 8, !tbaa !9
  %39 = tail call double @llvm.fmuladd.f64(double %38, double %38, double %35)
  %40 = getelementptr inbounds nuw double, ptr %0, i64 %30
  %41 = getelementptr inbounds nuw i8, ptr %40, i64 16
  %42 = load double, ptr %41, align 8, !tbaa !9
  %43 = tail call double @llvm.fmuladd.f64(double %42, double %42, double %39)
  %44 = getelementptr inbounds nuw double, ptr %0, i64 %30
  %45 = getelementptr inbounds nuw i8, ptr %44, i64 24
  %46 = load double, ptr %45, align 8, !tbaa !9
  %47 = tail call double @llvm.fmuladd.f64(double %46, double %46, double %43)
  %48 = add nuw nsw i64 %30, 4
  %49 = add i64 %32, 4
  %50 = icmp eq i64 %49, %9
  br i1 %50, label %10, label %29, !llvm.loop !13
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @sqrt(double noundef) local_unnamed_addr #2

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write)
declare void @llvm.assume(i1 noundef) #3

attributes #0 = { nofree norecurse nounwind memory(argmem: read, errnomem: write) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { mustprogress nocallback nofree nounwind willreturn memory(errnomem: write) "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write) }
attributes #4 = { nounwind }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}
!llvm.errno.tbaa = !{!5}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!5 = !{!6, !6, i64 0}
!6 = !{!"int", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = !{!10, !10, i64 0}
!10 = !{!"double", !7, i64 0}
!11 = distinct !{!11, !12}
!12 = !{!"llvm.loop.unroll.disable"}
!13 = distinct !{!13, !14}
!14 = !{!"llvm.loop.mustprogress"}

; CHECK-LABEL: define { double, double } @fwddiffe_norm(ptr noundef readonly captures(none) %0, ptr %v.shadow, i32 noundef %1)
; CHECK: call double @llvm.fmuladd.f64(
; CHECK: call double @sqrt(
; CHECK: fdiv double
; CHECK: ret { double, double }
